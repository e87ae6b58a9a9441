//! `TableDefinition::to_html`: the table drawn as one self-contained page.

use dynamo_entity::{Entity, TableDefinition};

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "ROOM#<room>"]
#[sk = "MSG#<at:13>"]
#[gsi1(pk = "AUTHOR#<author>", sk = "MSG#<at:13>", query = "by_author")]
pub struct Msg {
    pub room: String,
    pub at: u64,
    pub author: String,
    pub text: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "ROOM#<room>"]
#[sk = "META"]
pub struct Room {
    pub room: String,
    pub title: String,
}

#[test]
fn the_page_draws_every_sample_by_partition_and_entity() {
    let def = TableDefinition::from_entities(&[Msg::SCHEMA, Room::SCHEMA]).unwrap();
    let msg = |room: &str, at: u64, text: &str| {
        Msg { room: room.into(), at, author: "ana".into(), text: text.into() }.to_item().unwrap()
    };
    let samples = vec![
        msg("b", 2, "second"),
        Room { room: "b".into(), title: "<Bee> & co".into() }.to_item().unwrap(),
        msg("a", 1, "hello"),
        msg("b", 1, "first"),
    ];
    let html = def.to_html("Chat", &samples);
    assert!(html.starts_with("<!DOCTYPE html>") && html.contains("<svg") && html.ends_with("</html>\n"));
    // Self-contained: no script, nothing loaded from elsewhere.
    assert!(!html.contains("<script"));
    assert_eq!(html.matches("http").count(), html.matches("http://www.w3.org/2000/svg").count());
    assert!(!html.contains("src=") && !html.contains("href="));
    // Text is escaped.
    assert!(html.contains("&lt;Bee&gt; &amp; co") && !html.contains("<Bee>"));
    // Partitions in order of first sight, sort keys ordered within: b's first message before its second.
    let (first, second) = (html.find(">first<").unwrap(), html.find(">second<").unwrap());
    assert!(html.find(">ROOM#b<").unwrap() < html.find(">ROOM#a<").unwrap());
    assert!(first < second);
    // One colour per entity, in the legend with its samples and its keys.
    assert!(html.contains("Msg <small>(3 samples; PK = ROOM#&lt;room&gt;, SK = MSG#&lt;at:13&gt;)</small>"));
    assert!(html.contains("Room <small>(1 sample;"));
    assert_eq!(html.matches(r##"fill="#4e79a7""##).count(), 3, "Msg's rows in Msg's colour");
    assert_eq!(html.matches(r##"fill="#f28e2b""##).count(), 1, "Room's row in Room's");
    // The index's key attributes have columns; the access patterns say their key conditions.
    assert!(html.contains(">GSI1PK<") && html.contains(">AUTHOR#ana<"));
    assert!(html.contains("<td>GSI1</td><td><code>GSI1PK = AUTHOR#&lt;author&gt;"));
    assert!(html.contains("<td>(table)</td><td><code>PK = ROOM#&lt;room&gt; AND SK = META</code></td><td>Room</td>"));
    assert!(html.contains("<code>PK = ROOM#&lt;room&gt; AND [begins_with(SK, &quot;MSG#&quot;)"));
}
