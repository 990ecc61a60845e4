//! Kubernetes' `ConversionReview` (`apiextensions.k8s.io/v1` and
//! `v1beta1`): the request a conversion webhook is sent and the response it
//! answers, and the checks of that response as Kubernetes'
//! `webhook_converter.go` makes them (`getConvertedObjectsFromResponse`).

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The ConversionReview versions Kubernetes speaks, in its order of
/// preference within `conversionReviewVersions` (the first listed it
/// supports wins).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReviewVersion {
    V1,
    V1beta1,
}

impl ReviewVersion {
    /// The first version of `listed` that is supported, as Kubernetes'
    /// `createConversionReviewObjects` picks it.
    pub fn pick(listed: &[String]) -> Option<Self> {
        listed.iter().find_map(|v| match v.as_str() {
            "v1" => Some(Self::V1),
            "v1beta1" => Some(Self::V1beta1),
            _ => None,
        })
    }

    pub fn api_version(self) -> &'static str {
        match self {
            Self::V1 => "apiextensions.k8s.io/v1",
            Self::V1beta1 => "apiextensions.k8s.io/v1beta1",
        }
    }
}

/// A review as sent.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Review<'a> {
    pub api_version: &'static str,
    pub kind: &'static str,
    pub request: Request<'a>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Request<'a> {
    pub uid: &'a str,
    #[serde(rename = "desiredAPIVersion")]
    pub desired_api_version: &'a str,
    pub objects: &'a [Value],
}

/// The JSON of a review of `objects`, each spliced as the JSON it is:
/// byte for byte what serialising `Review::new` of their values gives.
pub fn review_bytes(version: ReviewVersion, uid: &str, desired_api_version: &str, objects: &[Vec<u8>]) -> Vec<u8> {
    let size = objects.iter().map(|o| o.len() + 1).sum::<usize>();
    let mut out = review_head(version, uid, desired_api_version, size + REVIEW_TAIL.len());
    for (i, object) in objects.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(object);
    }
    out.extend_from_slice(REVIEW_TAIL);
    out
}

/// The JSON of a review up to its objects (`review_bytes` without the
/// objects, and `REVIEW_TAIL`), with room for `more` bytes after it.
pub fn review_head(version: ReviewVersion, uid: &str, desired_api_version: &str, more: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(more + 160);
    out.extend_from_slice(b"{\"apiVersion\":");
    serde_json::to_writer(&mut out, version.api_version()).expect("strings serialize");
    out.extend_from_slice(b",\"kind\":\"ConversionReview\",\"request\":{\"uid\":");
    serde_json::to_writer(&mut out, uid).expect("strings serialize");
    out.extend_from_slice(b",\"desiredAPIVersion\":");
    serde_json::to_writer(&mut out, desired_api_version).expect("strings serialize");
    out.extend_from_slice(b",\"objects\":[");
    out
}

/// What ends a review after its objects.
pub const REVIEW_TAIL: &[u8] = b"]}}";

impl<'a> Review<'a> {
    pub fn new(version: ReviewVersion, uid: &'a str, desired_api_version: &'a str, objects: &'a [Value]) -> Self {
        Self {
            api_version: version.api_version(),
            kind: "ConversionReview",
            request: Request { uid, desired_api_version, objects },
        }
    }
}

/// A review as answered; anything missing is checked, not assumed. The
/// converted objects are read as `T`: by default the bytes they were sent
/// as (`RawValue`), each read only as far as a caller needs.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", bound(deserialize = "T: Deserialize<'de>"))]
pub struct Answer<T> {
    #[serde(default)]
    pub api_version: String,
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub response: Option<Response<T>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", bound(deserialize = "T: Deserialize<'de>"))]
pub struct Response<T> {
    #[serde(default)]
    pub uid: String,
    #[serde(default = "Vec::new")]
    pub converted_objects: Vec<T>,
    #[serde(default)]
    pub result: ResultStatus,
}

/// The `result` of a response: a `metav1.Status`, of which only `status`
/// and `message` matter here.
#[derive(Debug, Default, Deserialize)]
pub struct ResultStatus {
    #[serde(default)]
    pub status: String,
    #[serde(default)]
    pub message: String,
}

impl<T> Answer<T> {
    /// The converted objects of a response to a review of `version` sent
    /// with `uid`, or why the response is refused, in Kubernetes' words.
    /// A v1beta1 response is not checked for its kind or uid, as Kubernetes
    /// does not check them, for compatibility.
    pub fn converted(self, version: ReviewVersion, uid: &str) -> Result<Vec<T>, String> {
        if version == ReviewVersion::V1 {
            let got = format!("{}, Kind={}", self.api_version, self.kind);
            let expected = "apiextensions.k8s.io/v1, Kind=ConversionReview";
            if got != expected {
                return Err(format!("expected webhook response of {expected}, got {got}"));
            }
        }
        let response = self.response.ok_or_else(|| "no response provided".to_string())?;
        if version == ReviewVersion::V1 && response.uid != uid {
            return Err(format!("expected response.uid={uid:?}, got {:?}", response.uid));
        }
        if response.result.status != "Success" {
            if !response.result.message.is_empty() {
                return Err(response.result.message);
            }
            return Err(format!("response.result.status was '{}', not 'Success'", response.result.status));
        }
        Ok(response.converted_objects)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use serde_json::value::RawValue;

    fn answer(v: Value) -> Answer<&'static RawValue> {
        serde_json::from_str(Box::leak(v.to_string().into_boxed_str())).unwrap()
    }

    #[test]
    fn a_spliced_review_is_the_serialised_one() {
        let objects =
            vec![json!({"apiVersion": "example.com/v1", "kind": "W", "metadata": {"name": "a\"b"}}), json!({})];
        let bytes: Vec<Vec<u8>> = objects.iter().map(|o| serde_json::to_vec(o).unwrap()).collect();
        let review = Review::new(ReviewVersion::V1beta1, "u\"1", "example.com/v2", &objects);
        assert_eq!(
            review_bytes(ReviewVersion::V1beta1, "u\"1", "example.com/v2", &bytes),
            serde_json::to_vec(&review).unwrap()
        );
    }

    #[test]
    fn picks_the_first_supported_version() {
        assert_eq!(ReviewVersion::pick(&["v2".into(), "v1beta1".into(), "v1".into()]), Some(ReviewVersion::V1beta1));
        assert_eq!(ReviewVersion::pick(&["v1".into()]), Some(ReviewVersion::V1));
        assert_eq!(ReviewVersion::pick(&["v9".into()]), None);
    }

    #[test]
    fn checks_responses_as_kubernetes_does() {
        let ok = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
            "response": {"uid": "u", "convertedObjects": [{"a": 1}], "result": {"status": "Success"}}});
        let converted = answer(ok.clone()).converted(ReviewVersion::V1, "u").unwrap();
        assert_eq!(converted.iter().map(|raw| raw.get()).collect::<Vec<_>>(), [r#"{"a":1}"#]);
        assert_eq!(
            answer(ok.clone()).converted(ReviewVersion::V1, "x").unwrap_err(),
            r#"expected response.uid="x", got "u""#
        );
        assert!(answer(ok).converted(ReviewVersion::V1beta1, "x").is_ok(), "v1beta1 skips the uid");
        let wrong_kind = json!({"apiVersion": "v1", "kind": "Status", "response": {}});
        assert_eq!(
            answer(wrong_kind).converted(ReviewVersion::V1, "u").unwrap_err(),
            "expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got v1, Kind=Status"
        );
        let failed = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
            "response": {"uid": "u", "result": {"status": "Failure", "message": "no can do"}}});
        assert_eq!(answer(failed).converted(ReviewVersion::V1, "u").unwrap_err(), "no can do");
        let silent = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview",
            "response": {"uid": "u", "result": {"status": "Failure"}}});
        assert_eq!(
            answer(silent).converted(ReviewVersion::V1, "u").unwrap_err(),
            "response.result.status was 'Failure', not 'Success'"
        );
        let none = json!({"apiVersion": "apiextensions.k8s.io/v1", "kind": "ConversionReview"});
        assert_eq!(answer(none).converted(ReviewVersion::V1, "u").unwrap_err(), "no response provided");
    }
}
