//! Scans read a page at a time: the cursor holds every segment's position and resumes the
//! scan exactly; a cursor of another scan, or an altered one, is refused. Against DynamoDB Local.

mod common;

use dynamo_entity::prelude::*;
use std::collections::HashMap;

use dynamo_entity::{Cursor, CursorSecret, Entity, Error, Page, Scan};

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "ORDER#<id>"]
#[sk = "METADATA"]
#[gsi1(pk = "BUCKET#<bucket>", sk = "ORDER#<id>")]
pub struct Order {
    pub id: u32,
    pub bucket: u8,
    pub total: u64,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "USER#<name>"]
#[sk = "PROFILE"]
#[gsi1(pk = "BUCKET#<bucket>", sk = "USER#<name>")]
pub struct User {
    pub name: String,
    pub bucket: u8,
}

/// Pages `scan()` to the end with the cursors: the items, how many pages, the largest page.
async fn pages(scan: impl Fn() -> Scan<Order>) -> (Vec<Order>, usize, usize) {
    let mut all = Vec::new();
    let mut count = 0;
    let mut largest = 0;
    let mut next: Option<Cursor> = None;
    loop {
        let s = match next.take() {
            Some(c) => scan().after(c.to_string().parse().unwrap()),
            None => scan(),
        };
        let Page { items, next: n, .. } = s.page().await.unwrap();
        count += 1;
        largest = largest.max(items.len());
        all.extend(items);
        match n {
            Some(c) => next = Some(c),
            None => break,
        }
        assert!(count < 1000, "the scan does not end");
    }
    (all, count, largest)
}

fn once(items: &[Order]) -> HashMap<u32, usize> {
    let mut seen = HashMap::new();
    for o in items {
        *seen.entry(o.id).or_insert(0) += 1;
    }
    seen
}

#[tokio::test]
async fn a_segmented_scan_paged_with_cursors_returns_every_item_once() {
    let table = common::table("scan-cursors", &[Order::SCHEMA, User::SCHEMA]).await;
    let orders: Vec<Order> =
        (0..230).map(|id| Order { id, bucket: (id % 3) as u8, total: u64::from(id % 10) }).collect();
    let users: Vec<User> = (0..90).map(|i| User { name: format!("u{i:03}"), bucket: (i % 3) as u8 }).collect();
    table.batch_put(&orders).await.unwrap();
    table.batch_put(&users).await.unwrap();

    // 4 segments, 17 items a page: every order once, no user.
    let (all, count, largest) = pages(|| table.scan::<Order>().segments(4).limit(17)).await;
    let seen = once(&all);
    assert_eq!(all.len(), 230, "every order once");
    assert!(seen.values().all(|n| *n == 1) && seen.len() == 230);
    assert_eq!(largest, 17);
    assert!(count >= 230_usize.div_ceil(17), "{count} pages");

    // Without a limit: one request per segment a page, still every order once.
    let (all, _, _) = pages(|| table.scan::<Order>().segments(4)).await;
    assert_eq!(once(&all).len(), 230);
    assert_eq!(all.len(), 230);

    // With a filter, on the index, with a limit of 1 (every page stops inside a segment).
    let f = Order::fields();
    let (all, _, largest) =
        pages(|| table.scan::<Order>().index("GSI1").segments(3).filter(f.total.lt(3)).limit(1)).await;
    let want = orders.iter().filter(|o| o.total < 3).count();
    assert_eq!((all.len(), once(&all).len(), largest), (want, want, 1));
    assert!(all.iter().all(|o| o.total < 3));

    // A cursor of another scan is refused before any request.
    let first = table.scan::<Order>().segments(4).limit(5).page().await.unwrap();
    let cursor = first.next.unwrap();
    let refused = |r: Result<Page<Order>, Error>| matches!(r, Err(Error::InvalidCursor));
    assert!(refused(table.scan::<Order>().segments(3).after(cursor.clone()).page().await), "segment count");
    assert!(refused(table.scan::<Order>().segments(4).index("GSI1").after(cursor.clone()).page().await), "index");
    assert!(
        refused(table.scan::<Order>().segments(4).filter(f.total.gt(1)).after(cursor.clone()).page().await),
        "filter"
    );
    let foreign = table.scan::<User>().segments(4).after(cursor.clone()).page().await;
    assert!(matches!(foreign, Err(Error::InvalidCursor)), "entity");
    // ... and a query's cursor, and a scan's cursor given to a query.
    let q = table.query(Order::query_gsi1_by_bucket(1).limit(2)).await.unwrap();
    let query_cursor = q.next.unwrap();
    assert!(refused(table.scan::<Order>().segments(4).after(query_cursor).page().await), "query cursor");
    let r = table.query(Order::query_gsi1_by_bucket(1).limit(2).after(cursor.clone())).await;
    assert!(matches!(r, Err(Error::InvalidCursor)), "{r:?}");
    // Every altered character is refused.
    let text = cursor.to_string();
    for i in 0..text.len() {
        let mut t: Vec<char> = text.chars().collect();
        t[i] = if t[i] == 'A' { 'B' } else { 'A' };
        let t: String = t.into_iter().collect();
        let used = match t.parse::<Cursor>() {
            Ok(c) => table.scan::<Order>().segments(4).after(c).page().await.is_ok(),
            Err(_) => false,
        };
        assert!(!used, "altered at {i}");
    }
    // The stream resumes from a cursor too: the rest of the orders.
    let rest = table.scan::<Order>().segments(4).after(cursor).all().await.unwrap();
    let mut both = first.items.clone();
    both.extend(rest);
    assert_eq!((both.len(), once(&both).len()), (230, 230));
}

#[tokio::test]
async fn signed_scan_cursors_are_refused_by_other_secrets() {
    let table = common::table("scan-cursors-signed", &[Order::SCHEMA]).await;
    let orders: Vec<Order> = (0..40).map(|id| Order { id, bucket: 0, total: 1 }).collect();
    table.batch_put(&orders).await.unwrap();
    let secret = CursorSecret::new([9u8; 32]).unwrap();
    let signed = table.clone().with_cursor_secret(secret.clone().encrypted());
    let page = signed.scan::<Order>().segments(2).limit(7).page().await.unwrap();
    assert_eq!(page.items.len(), 7);
    let cursor = page.next.unwrap();
    // The same secret (signed only) reads it; no secret, or another, refuses it.
    let again = table.clone().with_cursor_secret(secret);
    let rest = again.scan::<Order>().segments(2).after(cursor.clone()).all().await.unwrap();
    assert_eq!(rest.len() + 7, 40);
    let r = table.scan::<Order>().segments(2).after(cursor.clone()).page().await;
    assert!(matches!(r, Err(Error::InvalidCursor)));
    let other = table.clone().with_cursor_secret(CursorSecret::new([8u8; 32]).unwrap());
    let r = other.scan::<Order>().segments(2).after(cursor).page().await;
    assert!(matches!(r, Err(Error::InvalidCursor)));
}
