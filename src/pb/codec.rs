//! The codec of every generated service: prost's, with encode buffers sized
//! for what each message type streams. A watch stream encodes whatever
//! events are ready into one buffer and yields it at 32 KiB (tonic's yield
//! threshold); from tonic's default 8 KiB buffer that batch grows the
//! buffer three times, each a reallocation that copies what is there and
//! faults in fresh pages, once per watcher. The perf profile of 1,000 gRPC
//! watchers put that growth at a fifth of the server's CPU. A watch event's
//! buffer starts at 64 KiB, so a batch fits as it is; every other message
//! keeps tonic's defaults (a unary answer would only waste the space).

use std::any::TypeId;
use std::marker::PhantomData;

use tonic::codec::{BufferSettings, Codec as TonicCodec};
use tonic_prost::{ProstCodec, ProstDecoder, ProstEncoder};

/// tonic's yield threshold: an encode buffer is sent once it holds this much.
const YIELD_THRESHOLD: usize = 32 * 1024;

/// The encode buffer of a watch event stream: a yielded batch (up to the
/// threshold plus one 1 KB event) and the next batch's start fit in it.
const WATCH_BUFFER: usize = 2 * YIELD_THRESHOLD;

/// prost's codec, with the encode buffer of `T`'s messages sized by
/// [`encode_settings`].
#[derive(Debug, Clone)]
pub struct Codec<T, U>(PhantomData<(T, U)>);

impl<T, U> Default for Codec<T, U> {
    fn default() -> Self {
        Self(PhantomData)
    }
}

/// How messages of type `T` are buffered when encoded.
pub fn encode_settings<T: 'static>() -> BufferSettings {
    if TypeId::of::<T>() == TypeId::of::<super::v1::WatchEvent>() {
        BufferSettings::new(WATCH_BUFFER, YIELD_THRESHOLD)
    } else {
        BufferSettings::default()
    }
}

impl<T, U> TonicCodec for Codec<T, U>
where
    T: prost::Message + Send + 'static,
    U: prost::Message + Default + Send + 'static,
{
    type Encode = T;
    type Decode = U;
    type Encoder = ProstEncoder<T>;
    type Decoder = ProstDecoder<U>;

    fn encoder(&mut self) -> Self::Encoder {
        ProstCodec::<T, U>::raw_encoder(encode_settings::<T>())
    }

    fn decoder(&mut self) -> Self::Decoder {
        ProstCodec::<T, U>::raw_decoder(BufferSettings::default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tonic::codec::Encoder as _;

    #[test]
    fn watch_events_encode_into_a_buffer_that_holds_a_batch() {
        let watch = Codec::<super::super::v1::WatchEvent, ()>::default().encoder().buffer_settings();
        let unary = Codec::<super::super::v1::GetResourceResponse, ()>::default().encoder().buffer_settings();
        let default = BufferSettings::default();
        assert_eq!(format!("{watch:?}"), format!("{:?}", BufferSettings::new(WATCH_BUFFER, YIELD_THRESHOLD)));
        assert_eq!(format!("{unary:?}"), format!("{default:?}"));
    }
}
