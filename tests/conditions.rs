//! Typed conditions: every path operator, `and`/`or`/`not`, as query filters against DynamoDB
//! Local, checked against a reference evaluator; filters with `limit` and cursors.

mod common;

use dynamo_entity::prelude::*;
use dynamo_entity::{Condition, Entity, KeyPart, Table};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};

#[derive(KeyPart, Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
#[key(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Status {
    Active,
    Hidden,
    SoldOut,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "SHOP#<shop>"]
#[sk = "P#<id:4>"]
pub struct Product {
    pub shop: String,
    pub id: u32,
    pub name: String,
    pub stock: i64,
    pub price: Option<u32>,
    pub tags: Vec<String>,
    pub status: Status,
}

/// A condition as the test builds it, evaluated both by DynamoDB and by [`TCond::eval`].
#[derive(Debug, Clone)]
enum TCond {
    Stock(&'static str, i64),
    StockBetween(i64, i64),
    Name(&'static str, String),
    NameBegins(String),
    NameContains(String),
    Price(&'static str, u32),
    PriceExists(bool),
    Tag(String),
    TagsSize(&'static str, u64),
    Status(bool, Status),
    And(Box<TCond>, Box<TCond>),
    Or(Box<TCond>, Box<TCond>),
    Not(Box<TCond>),
}

fn cmp<T: PartialOrd>(op: &str, a: &T, b: &T) -> bool {
    match op {
        "eq" => a == b,
        "ne" => a != b,
        "lt" => a < b,
        "lte" => a <= b,
        "gt" => a > b,
        "gte" => a >= b,
        _ => unreachable!(),
    }
}

fn on<E, T>(path: &dynamo_entity::Path<E, T>, op: &str, v: T) -> Condition<E> {
    match op {
        "eq" => path.eq(v),
        "ne" => path.ne(v),
        "lt" => path.lt(v),
        "lte" => path.lte(v),
        "gt" => path.gt(v),
        "gte" => path.gte(v),
        _ => unreachable!(),
    }
}

impl TCond {
    fn eval(&self, p: &Product) -> bool {
        match self {
            TCond::Stock(op, v) => cmp(op, &p.stock, v),
            TCond::StockBetween(a, b) => *a <= p.stock && p.stock <= *b,
            TCond::Name(op, v) => cmp(op, &p.name.as_bytes(), &v.as_bytes()),
            TCond::NameBegins(v) => p.name.starts_with(v.as_str()),
            TCond::NameContains(v) => p.name.contains(v.as_str()),
            // A comparison with an absent attribute is false, except `<>`, which holds.
            TCond::Price(op, v) => match p.price {
                Some(price) => cmp(op, &price, v),
                None => *op == "ne",
            },
            TCond::PriceExists(e) => p.price.is_some() == *e,
            TCond::Tag(t) => p.tags.contains(t),
            TCond::TagsSize(op, n) => cmp(op, &(p.tags.len() as u64), n),
            TCond::Status(eq, s) => (p.status == *s) == *eq,
            TCond::And(a, b) => a.eval(p) && b.eval(p),
            TCond::Or(a, b) => a.eval(p) || b.eval(p),
            TCond::Not(a) => !a.eval(p),
        }
    }

    fn build(&self) -> Condition<Product> {
        let f = Product::fields();
        match self {
            TCond::Stock(op, v) => on(&f.stock, op, *v),
            TCond::StockBetween(a, b) => f.stock.between(*a, *b),
            TCond::Name(op, v) => on(&f.name, op, v.clone()),
            TCond::NameBegins(v) => f.name.begins_with(v.clone()),
            TCond::NameContains(v) => f.name.contains(v.clone()),
            TCond::Price(op, v) => on(&f.price, op, Some(*v)),
            TCond::PriceExists(true) => f.price.exists(),
            TCond::PriceExists(false) => f.price.not_exists(),
            TCond::Tag(t) => f.tags.contains(t.clone()),
            TCond::TagsSize(op, n) => {
                let s = f.tags.size();
                match *op {
                    "eq" => s.eq(*n),
                    "ne" => s.ne(*n),
                    "lt" => s.lt(*n),
                    "lte" => s.lte(*n),
                    "gt" => s.gt(*n),
                    _ => s.gte(*n),
                }
            }
            TCond::Status(true, s) => f.status.eq(*s),
            TCond::Status(false, s) => f.status.ne(*s),
            TCond::And(a, b) => a.build().and(b.build()),
            TCond::Or(a, b) => a.build().or(b.build()),
            TCond::Not(a) => a.build().not(),
        }
    }
}

const OPS: [&str; 6] = ["eq", "ne", "lt", "lte", "gt", "gte"];

fn status() -> impl Strategy<Value = Status> {
    prop_oneof![Just(Status::Active), Just(Status::Hidden), Just(Status::SoldOut)]
}

fn leaf() -> impl Strategy<Value = TCond> {
    let op = proptest::sample::select(&OPS[..]);
    prop_oneof![
        (op.clone(), -3i64..4).prop_map(|(o, v)| TCond::Stock(o, v)),
        (-3i64..4, -3i64..4).prop_map(|(a, b)| TCond::StockBetween(a, b)),
        (op.clone(), "[ab]{0,3}").prop_map(|(o, v)| TCond::Name(o, v)),
        "[ab]{0,2}".prop_map(TCond::NameBegins),
        "[ab]{1,2}".prop_map(TCond::NameContains),
        (op.clone(), 0u32..4).prop_map(|(o, v)| TCond::Price(o, v)),
        any::<bool>().prop_map(TCond::PriceExists),
        "[xyz]".prop_map(TCond::Tag),
        (proptest::sample::select(&OPS[..]), 0u64..4).prop_map(|(o, n)| TCond::TagsSize(o, n)),
        (any::<bool>(), status()).prop_map(|(e, s)| TCond::Status(e, s)),
    ]
}

fn cond() -> impl Strategy<Value = TCond> {
    leaf().prop_recursive(3, 12, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| TCond::And(Box::new(a), Box::new(b))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| TCond::Or(Box::new(a), Box::new(b))),
            inner.prop_map(|a| TCond::Not(Box::new(a))),
        ]
    })
}

fn products(shop: &str) -> Vec<Product> {
    let names = ["", "a", "ab", "abb", "b", "ba", "bab", "aab", "bb", "aa", "abba", "b"];
    let tags: [&[&str]; 4] = [&[], &["x"], &["x", "y"], &["y", "z", "x"]];
    let statuses = [Status::Active, Status::Hidden, Status::SoldOut];
    (0..24u32)
        .map(|i| Product {
            shop: shop.into(),
            id: i,
            name: names[i as usize % names.len()].into(),
            stock: i64::from(i % 7) - 3,
            price: (i % 3 != 0).then_some(i % 5),
            tags: tags[i as usize % 4].iter().map(|s| (*s).to_owned()).collect(),
            status: statuses[i as usize % 3],
        })
        .collect()
}

async fn filtered(table: &Table, shop: &str, c: Condition<Product>, limit: Option<u32>) -> Vec<Product> {
    let mut out = Vec::new();
    let mut q = Product::query_by_shop(shop).into_query().filter(c);
    if let Some(n) = limit {
        q = q.limit(n);
    }
    for _ in 0..100 {
        let page = table.query(q.clone()).await.unwrap();
        if let (Some(n), Some(_)) = (limit, &page.next) {
            assert_eq!(page.items.len(), n as usize, "a page with a cursor is full");
        }
        out.extend(page.items);
        match page.next {
            Some(next) => q = q.after(next),
            None => return out,
        }
    }
    panic!("no end after 100 pages")
}

#[test]
fn random_conditions_evaluate_in_dynamodb_as_in_the_reference() {
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let table = rt.block_on(common::table("conditions-prop", &[Product::SCHEMA]));
    let items = products("s");
    rt.block_on(table.batch_put(&items)).unwrap();
    let mut runner = TestRunner::new(Config { cases: 200, failure_persistence: None, ..Config::default() });
    runner
        .run(&(cond(), prop_oneof![Just(None), (1u32..6).prop_map(Some)]), |(c, limit)| {
            let want: Vec<Product> = items.iter().filter(|p| c.eval(p)).cloned().collect();
            let got = rt.block_on(filtered(&table, "s", c.build(), limit));
            prop_assert_eq!(got, want, "{:?}", c);
            Ok(())
        })
        .unwrap();
}

#[tokio::test]
async fn every_operator_is_true_once_and_false_once() {
    let table = common::table("conditions-ops", &[Product::SCHEMA]).await;
    let p = Product {
        shop: "one".into(),
        id: 1,
        name: "banana".into(),
        stock: 5,
        price: Some(3),
        tags: vec!["x".into(), "y".into()],
        status: Status::SoldOut,
    };
    table.put(&p).await.unwrap();
    let f = Product::fields();
    let cases: Vec<(Condition<Product>, Condition<Product>)> = vec![
        (f.stock.eq(5), f.stock.eq(4)),
        (f.stock.ne(4), f.stock.ne(5)),
        (f.stock.lt(6), f.stock.lt(5)),
        (f.stock.lte(5), f.stock.lte(4)),
        (f.stock.gt(4), f.stock.gt(5)),
        (f.stock.gte(5), f.stock.gte(6)),
        (f.stock.between(5, 9), f.stock.between(6, 9)),
        (f.name.begins_with("ban"), f.name.begins_with("nan")),
        (f.name.contains("nan"), f.name.contains("xyz")),
        (f.tags.contains("y"), f.tags.contains("z")),
        (f.price.exists(), f.price.not_exists()),
        (f.tags.size().eq(2), f.tags.size().gt(2)),
        (f.name.size().between(6, 6), f.name.size().lt(6)),
        (f.status.eq(Status::SoldOut), f.status.eq(Status::Active)),
        (f.stock.eq(5).and(f.name.eq("banana")), f.stock.eq(5).and(f.name.eq("apple"))),
        (f.stock.eq(1).or(f.name.eq("banana")), f.stock.eq(1).or(f.name.eq("apple"))),
        (f.stock.eq(1).not(), f.stock.eq(5).not()),
    ];
    for (i, (yes, no)) in cases.into_iter().enumerate() {
        assert_eq!(
            table.query_all(Product::query_by_shop("one").into_query().filter(yes)).await.unwrap(),
            std::slice::from_ref(&p),
            "case {i} (true)"
        );
        assert!(
            table.query_all(Product::query_by_shop("one").into_query().filter(no)).await.unwrap().is_empty(),
            "case {i} (false)"
        );
    }
    // The enum is compared as its stored text.
    let req = Product::query_by_shop("one").into_query().filter(f.status.eq(Status::SoldOut)).request().unwrap();
    let filter = req.filter_expression.as_deref().unwrap();
    assert!(filter.starts_with("#c") && filter.contains(" = :c"), "{filter}");
    assert_eq!(req.expression_attribute_names.values().filter(|n| *n == "status").count(), 1);
    assert!(
        req.expression_attribute_values.values().any(|v| v == &dynamo_entity::AttributeValue::S("SOLD_OUT".into()))
    );
}
