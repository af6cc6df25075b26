//! What every SARIF log concord writes gets, whoever built it: stable
//! `partialFingerprints`, so code-scanning services track a result across
//! commits, and the driver's `informationUri` when the package names a
//! homepage.

use serde_json::Value;
use sha2::{Digest, Sha256};

/// The fingerprint's name; bump the suffix if its recipe changes.
pub const FINGERPRINT: &str = "concordResult/v1";

/// Add fingerprints and the driver's information URI to a SARIF log.
pub fn finish(doc: &mut Value) {
    let Some(runs) = doc.get_mut("runs").and_then(Value::as_array_mut) else {
        return;
    };
    for run in runs {
        let homepage = env!("CARGO_PKG_HOMEPAGE");
        if !homepage.is_empty() {
            if let Some(driver) = run
                .pointer_mut("/tool/driver")
                .and_then(Value::as_object_mut)
            {
                driver.insert("informationUri".into(), Value::String(homepage.into()));
            }
        }
        let Some(results) = run.get_mut("results").and_then(Value::as_array_mut) else {
            continue;
        };
        for r in results {
            let fp = fingerprint(r);
            if let Some(obj) = r.as_object_mut() {
                obj.insert(
                    "partialFingerprints".into(),
                    serde_json::json!({ FINGERPRINT: fp }),
                );
            }
        }
    }
}

/// Rule, file of the primary location and message with every number
/// removed: a result keeps its fingerprint when a patch elsewhere shifts
/// its lines or renumbers its statements.
pub fn fingerprint(result: &Value) -> String {
    let rule = result["ruleId"].as_str().unwrap_or("");
    let file = result
        .pointer("/locations/0/physicalLocation/artifactLocation/uri")
        .and_then(Value::as_str)
        .unwrap_or("");
    let message: String = result
        .pointer("/message/text")
        .and_then(Value::as_str)
        .unwrap_or("")
        .chars()
        .filter(|c| !c.is_ascii_digit())
        .collect();
    let mut h = Sha256::new();
    for part in [rule, file, &message] {
        h.update(part.as_bytes());
        h.update([0u8]);
    }
    format!("{:x}", h.finalize())[..32].to_string()
}

/// [`finish`] on a serialised log (for writers that hand over text).
pub fn finish_text(text: &str) -> String {
    match serde_json::from_str::<Value>(text) {
        Ok(mut doc) => {
            finish(&mut doc);
            serde_json::to_string_pretty(&doc).expect("json")
        }
        Err(_) => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn result(line: u32, msg: &str) -> Value {
        json!({"ruleId": "r", "message": {"text": msg},
               "locations": [{"physicalLocation": {"artifactLocation": {"uri": "a.c"},
                                                   "region": {"startLine": line}}}]})
    }

    #[test]
    fn fingerprints_survive_line_shifts_and_tell_messages_apart() {
        assert_eq!(
            fingerprint(&result(3, "x line 3")),
            fingerprint(&result(9, "x line 9"))
        );
        assert_ne!(fingerprint(&result(3, "x")), fingerprint(&result(3, "y")));
    }

    #[test]
    fn finish_adds_a_fingerprint_to_every_result() {
        let mut doc = json!({"runs": [{"tool": {"driver": {"name": "concord"}},
                                       "results": [result(1, "a"), result(2, "b")]}]});
        finish(&mut doc);
        for r in doc["runs"][0]["results"].as_array().unwrap() {
            assert_eq!(
                r["partialFingerprints"][FINGERPRINT]
                    .as_str()
                    .unwrap()
                    .len(),
                32
            );
        }
    }
}
