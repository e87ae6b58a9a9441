//! DB-ESDK's refusals (feature `encryption`): its interceptor's errors, as the SDK reports them,
//! become [`Error::Encryption`].

use super::Error;

/// An item that DB-ESDK's encryption took past DynamoDB's 400 KB (its header, footer and the
/// ciphertexts' type bytes added): the encrypting handle's interceptor refuses the request
/// before it is sent, and the operation reports [`Error::Validation`] with this text.
#[derive(Debug)]
pub(crate) struct EncryptedTooLarge(pub(crate) String);

impl std::fmt::Display for EncryptedTooLarge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for EncryptedTooLarge {}

/// [`Error::Encryption`] if `e` is DB-ESDK's interceptor refusing a request or a response
/// (the SDK reports it as an unhandled error whose source is the interceptor's);
/// [`Error::Validation`] if the handle's interceptor refused an item encryption took past 400 KB.
pub(crate) fn refusal(e: &aws_sdk_dynamodb::Error) -> Option<Error> {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = source {
        if let Some(large) = err.downcast_ref::<EncryptedTooLarge>() {
            return Some(Error::Validation(large.0.clone()));
        }
        source = err.source();
    }
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(err) = source {
        let text = err.to_string();
        if let Some(hook) = text.strip_prefix("DbEsdkInterceptor ") {
            let reading = hook.contains("completion") || hook.contains("deserialization");
            let mut said = Vec::new();
            let mut inner = err.source();
            while let Some(i) = inner {
                said.push(i.to_string());
                inner = i.source();
            }
            let said = said.join(": ");
            // DB-ESDK's errors are nested structures, each with a `message`: the outermost
            // first, then what caused it.
            let mut messages = quoted_messages(&said);
            messages.reverse();
            let message = if messages.is_empty() { said } else { messages.join(": ") };
            return Some(Error::Encryption { reading, message });
        }
        source = err.source();
    }
    None
}

/// The texts of the `message: "..."` fields in a `Debug` rendering, in order.
pub(crate) fn quoted_messages(text: &str) -> Vec<String> {
    const FIELD: &str = "message: \"";
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(FIELD) {
        rest = &rest[at + FIELD.len()..];
        let mut message = String::new();
        let mut end = rest.len();
        let mut chars = rest.char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => match chars.next() {
                    Some((_, 'n')) => message.push('\n'),
                    Some((_, 't')) => message.push('\t'),
                    Some((_, c)) => message.push(c),
                    None => {}
                },
                '"' => {
                    end = i + 1;
                    break;
                }
                c => message.push(c),
            }
        }
        out.push(message);
        rest = &rest[end..];
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn db_esdk_messages_are_taken_from_its_nested_errors() {
        let said = r#"DynamoDbItemEncryptorError { error: CollectionOfErrors { list: [X { message: "inner \"quoted\"\n2" }], message: "outer" } }"#;
        assert_eq!(super::quoted_messages(said), ["inner \"quoted\"\n2", "outer"]);
        assert!(super::quoted_messages("no messages").is_empty());
        assert_eq!(super::quoted_messages(r#"message: "cut off"#), ["cut off"]);
    }
}
