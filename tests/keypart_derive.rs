//! `#[derive(KeyPart)]` and hand-written `KeyPart` impls.

use dynamo_entity::prelude::*;
use dynamo_entity::{Entity, KeyPart, KeyPartError, key::to_key_text};

#[derive(KeyPart, Debug, Clone, Copy, PartialEq)]
#[key(rename_all = "SCREAMING_SNAKE_CASE")]
enum Alarm {
    BatteryLow,
    #[key(rename = "HOT")]
    Overheat,
    Ok,
}

#[derive(KeyPart, Debug, Clone, PartialEq)]
struct UserId(String);

#[derive(KeyPart, Debug, Clone, Copy, PartialEq)]
struct Seq(u32);

/// A hand-written impl that breaks the contract: its text holds `#`.
#[derive(Debug, Clone, PartialEq)]
struct Sneaky(String);

impl KeyPart for Sneaky {
    fn write_key(&self, out: &mut String) -> Result<(), KeyPartError> {
        out.push_str(&self.0);
        Ok(())
    }
    fn parse_key(text: &str) -> Result<Self, KeyPartError> {
        Ok(Sneaky(text.to_owned()))
    }
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "DEVICE#<device>"]
#[sk = "ALARM#<alarm>#<seq>"]
struct AlarmEvent {
    device: UserId,
    alarm: Alarm,
    seq: Seq,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "S#<s>"]
struct WithSneaky {
    s: Sneaky,
}

#[test]
fn unit_enums_are_words_and_newtypes_delegate() {
    assert_eq!(to_key_text(&Alarm::BatteryLow).unwrap(), "BATTERY_LOW");
    assert_eq!(to_key_text(&Alarm::Overheat).unwrap(), "HOT");
    assert_eq!(to_key_text(&Alarm::Ok).unwrap(), "OK");
    assert_eq!(Alarm::parse_key("HOT").unwrap(), Alarm::Overheat);
    let err = Alarm::parse_key("Overheat").unwrap_err();
    assert!(err.to_string().contains("`BATTERY_LOW`, `HOT`, `OK`"), "{err}");
    assert_eq!(to_key_text(&UserId("a#b".into())).unwrap(), "a%23b");
    assert_eq!(to_key_text(&Seq(7)).unwrap(), "0000000007");

    let e = AlarmEvent { device: UserId("d 1".into()), alarm: Alarm::BatteryLow, seq: Seq(3) };
    let key = e.primary_key();
    assert_eq!(key.pk(), "DEVICE#d%201");
    assert_eq!(key.sk(), "ALARM#BATTERY_LOW#0000000003");
    assert_eq!(AlarmEventKey::parse(&key.pk(), &key.sk()).unwrap(), key);
    // Stored as their own attributes too: the enum as its word (it has no serde impl).
    let item = e.to_item().unwrap();
    assert_eq!(item["alarm"], dynamo_entity::AttributeValue::S("BATTERY_LOW".into()));
    assert_eq!(AlarmEvent::from_item(item).unwrap(), e);

    let req =
        AlarmEvent::query_by_device(UserId("d 1".into())).alarm().eq(Alarm::Ok).seq().gte(Seq(2)).request().unwrap();
    assert_eq!(req.key_condition_expression, "#pk = :pk AND #sk BETWEEN :lo AND :hi");
}

#[test]
fn an_untrusted_impl_cannot_forge_key_structure() {
    let fine = WithSneaky { s: Sneaky("plain".into()) };
    assert_eq!(fine.primary_key().pk(), "S#plain");
    let forged = WithSneaky { s: Sneaky("x#y".into()) };
    assert!(matches!(forged.to_item(), Err(dynamo_entity::Error::Key(_))));
    assert!(forged.primary_key().try_pk().is_err());
}
