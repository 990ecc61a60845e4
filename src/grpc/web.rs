//! gRPC-Web on the gRPC port: `tonic_web` turns a gRPC-Web call
//! (`application/grpc-web`, `application/grpc-web-text`, over HTTP/1.1 or
//! HTTP/2) into a gRPC call before the services and the middleware of
//! `grpc::routes` see it, and its answer back, trailers in the body. Plain
//! gRPC passes through untouched.
//!
//! CORS, for browsers on other origins, only when `--cors-allowed-origins`
//! names some: a preflight from one of them is answered (any method the
//! services take, the headers it asks for, grpc-status and grpc-message
//! exposed), and a request carrying any other `Origin` gets 403 before it
//! reaches a service. With no origins configured no CORS header is sent and
//! `Origin` is not looked at: a browser on another origin cannot read the
//! answers, every other client is unaffected.

use std::sync::Arc;
use std::time::Duration;

use axum::http::{header, HeaderValue, Method, StatusCode};
use axum::response::IntoResponse;
use tower_http::cors::{AllowHeaders, AllowOrigin, CorsLayer, ExposeHeaders};

/// How long a browser may keep a preflight's answer.
const PREFLIGHT_MAX_AGE: Duration = Duration::from_secs(24 * 60 * 60);

/// The origins browsers may call from: `*` for any, else exact origins
/// (`https://app.example.com`).
#[derive(Debug, Clone)]
pub enum Origins {
    Any,
    List(Arc<Vec<HeaderValue>>),
}

impl Origins {
    /// Parses `--cors-allowed-origins`; `None` when it names none.
    pub fn parse(origins: &[String]) -> Result<Option<Self>, String> {
        if origins.is_empty() {
            return Ok(None);
        }
        if origins.iter().any(|origin| origin == "*") {
            return Ok(Some(Self::Any));
        }
        let values = origins.iter().map(|origin| {
            let trimmed = origin.trim_end_matches('/');
            HeaderValue::from_str(trimmed).map_err(|_| format!("{origin:?} is not an origin"))
        });
        Ok(Some(Self::List(Arc::new(values.collect::<Result<_, _>>()?))))
    }

    fn allows(&self, origin: &HeaderValue) -> bool {
        match self {
            Self::Any => true,
            Self::List(list) => list.contains(origin),
        }
    }
}

/// `router` answering gRPC-Web as well as gRPC, with CORS for `origins`.
pub fn serve(router: axum::Router, origins: Option<Origins>) -> axum::Router {
    let router = router.layer(tonic_web::GrpcWebLayer::new());
    let Some(origins) = origins else { return router };
    let allow = match &origins {
        Origins::Any => AllowOrigin::any(),
        Origins::List(list) => AllowOrigin::list(list.iter().cloned()),
    };
    let cors = CorsLayer::new()
        .allow_origin(allow)
        .allow_methods([Method::POST])
        .allow_headers(AllowHeaders::mirror_request())
        .expose_headers(ExposeHeaders::list(
            ["grpc-status", "grpc-message", "grpc-status-details-bin"].map(header::HeaderName::from_static),
        ))
        .max_age(PREFLIGHT_MAX_AGE);
    let refuse = move |request: axum::extract::Request, next: axum::middleware::Next| {
        let origins = origins.clone();
        async move {
            match request.headers().get(header::ORIGIN) {
                Some(origin) if !origins.allows(origin) => {
                    (StatusCode::FORBIDDEN, "origin not allowed").into_response()
                }
                _ => next.run(request).await,
            }
        }
    };
    router.layer(cors).layer(axum::middleware::from_fn(refuse))
}

#[cfg(test)]
mod tests {
    use super::Origins;

    #[test]
    fn origins_parse_into_none_any_or_a_list() {
        assert!(Origins::parse(&[]).unwrap().is_none());
        assert!(matches!(Origins::parse(&["*".into()]).unwrap(), Some(Origins::Any)));
        let Some(Origins::List(list)) = Origins::parse(&["https://a.example/".into()]).unwrap() else {
            panic!("a list")
        };
        assert_eq!(list.as_slice(), ["https://a.example"]);
        assert!(Origins::parse(&["bad\norigin".into()]).is_err());
    }
}
