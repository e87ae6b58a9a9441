//! The values that can key an index on a field's own attribute (issue 46): `f64`/`f32` (stored
//! as N in their plain number form, compared as numbers, NaN and the infinities refused before
//! sending). Against DynamoDB Local: an `f64` in a multi-attribute sort key ordered by value,
//! ranges, cursors, and refusals with nothing sent.

mod common;

use dynamo_entity::{AttributeType, AttributeValue, Entity, Error, Table, TableDefinition};

/// A product rated in its category (AWS's `rating >= 4.5`): `ByRating` sorts a category by the
/// `f64` rating, then the name; `ByPrice` keys a shop's products on an `f32` price; `ByWeight`
/// is partitioned by an optional `f64` weight (sparse: `None` is not in it).
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "PRODUCT#<product_id>"]
#[gsi1(index = "ByRating", pk = ["category"], sk = ["rating", "name"], query = "by_rating")]
#[gsi2(index = "ByPrice", pk = "<shop>", pk_attr = "shop", sk = "<price>", sk_attr = "price", query = "by_price")]
#[gsi3(index = "ByWeight", pk = "<weight>", pk_attr = "weight", query = "by_weight")]
pub struct Product {
    pub product_id: String,
    pub category: String,
    pub name: String,
    pub rating: f64,
    pub shop: String,
    pub price: f32,
    pub weight: Option<f64>,
}

fn product(id: &str, rating: f64) -> Product {
    Product {
        product_id: id.into(),
        category: "books".into(),
        name: format!("name of {id}"),
        rating,
        shop: "s1".into(),
        price: 1.5,
        weight: None,
    }
}

async fn ids(table: &Table, q: impl Into<dynamo_entity::Query<Product>>) -> Vec<String> {
    table.query_all(q).await.unwrap().into_iter().map(|p| p.product_id).collect()
}

#[test]
fn floats_key_an_index_as_numbers_in_their_plain_form() {
    let by_rating = Product::SCHEMA.index("ByRating").unwrap().multi.unwrap();
    assert_eq!(by_rating.sk[0].attr, "rating");
    assert_eq!(by_rating.sk[0].ty, AttributeType::N);
    let def = TableDefinition::from_entities(&[Product::SCHEMA]).unwrap();
    let types: Vec<(&str, &str)> = def.attribute_types.iter().map(|(a, t)| (a.as_str(), t.as_str())).collect();
    for attr in ["rating", "price", "weight"] {
        assert!(types.contains(&(attr, "N")), "{attr} is N: {types:?}");
    }
    for (rating, text) in [(4.5, "4.5"), (10.0, "10"), (-2.0, "-2"), (1e3, "1000"), (0.1 + 0.2, "0.30000000000000004")]
    {
        let item = product("p", rating).to_item().unwrap();
        assert_eq!(item["rating"], AttributeValue::N(text.into()));
    }
    let mut p = product("p", 1.0);
    p.price = 0.1;
    p.weight = Some(2.25);
    let item = p.to_item().unwrap();
    assert_eq!(
        (&item["price"], &item["weight"]),
        (&AttributeValue::N("0.1".into()), &AttributeValue::N("2.25".into()))
    );
    // The query's values are the attribute's: numbers, in the same form.
    let r = Product::query_by_rating("books").rating_gte(4.5).request().unwrap();
    assert_eq!(r.expression_attribute_values[":lo"], AttributeValue::N("4.5".into()));
    // Compared as numbers: 10 > 9.5 (as text, "10" < "9.5"), so this range is empty.
    let q = Product::query_by_rating("books").rating_between(10.0, 9.5);
    assert_eq!(q.sort_condition(), &dynamo_entity::SortCondition::Nothing);
}

#[test]
fn nan_and_infinities_are_refused_before_sending() {
    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1e200, 1e-200] {
        let err = product("p", bad).to_item().unwrap_err();
        assert!(matches!(&err, Error::Validation(m) if m.contains("`rating`") && m.contains("ByRating")), "{err:?}");
        let err = Product::update(Product::key("p")).set_rating(bad).request().unwrap_err();
        assert!(matches!(&err, Error::Validation(m) if m.contains("`rating`")), "{bad}: {err:?}");
        let err = Product::query_by_rating("books").rating_gte(bad).request().unwrap_err();
        assert!(matches!(&err, Error::Validation(m) if m.contains("`rating`")), "{bad}: {err:?}");
        let err = Product::query_by_rating("books").rating_between(1.0, bad).request().unwrap_err();
        assert!(matches!(&err, Error::Validation(m) if m.contains("`rating`")), "{bad}: {err:?}");
        let err = Product::query_by_rating("books").rating_eq(bad).request().unwrap_err();
        assert!(matches!(&err, Error::Validation(m) if m.contains("`rating`")), "{bad}: {err:?}");
        let err = Product::query_by_weight(bad).request().unwrap_err();
        assert!(matches!(&err, Error::Validation(m) if m.contains("`weight`")), "{bad}: {err:?}");
    }
    let mut p = product("p", 1.0);
    p.price = f32::NAN;
    let err = p.to_item().unwrap_err();
    assert!(matches!(&err, Error::Validation(m) if m.contains("`price`")), "{err:?}");
    p.price = 1.0;
    p.weight = Some(f64::INFINITY);
    let err = p.to_item().unwrap_err();
    assert!(matches!(&err, Error::Validation(m) if m.contains("`weight`")), "{err:?}");
    let err = Product::query_by_price("s1").price_lt(f32::NEG_INFINITY).request().unwrap_err();
    assert!(matches!(&err, Error::Validation(m) if m.contains("`price`")), "{err:?}");
}

#[tokio::test]
async fn an_f64_in_a_multi_attribute_sort_key_is_compared_as_a_number() {
    let table = common::table("key-values-f64", &[Product::SCHEMA]).await;
    // Text order would be -2, 0.25, 10, 1000, 4.5, 9, 9.75; by value it is the order below.
    let ratings = [("p1", -2.0), ("p2", 0.25), ("p3", 4.5), ("p4", 9.0), ("p5", 9.75), ("p6", 10.0), ("p7", 1e3)];
    for (id, r) in ratings {
        table.put(&product(id, r)).await.unwrap();
    }
    let q = || Product::query_by_rating("books");
    assert_eq!(ids(&table, q()).await, ["p1", "p2", "p3", "p4", "p5", "p6", "p7"]);
    assert_eq!(ids(&table, q().rating_gte(4.5)).await, ["p3", "p4", "p5", "p6", "p7"]);
    assert_eq!(ids(&table, q().rating_gt(4.5)).await, ["p4", "p5", "p6", "p7"]);
    assert_eq!(ids(&table, q().rating_lt(9.0)).await, ["p1", "p2", "p3"]);
    assert_eq!(ids(&table, q().rating_lte(0.25)).await, ["p1", "p2"]);
    assert_eq!(ids(&table, q().rating_between(-2.5, 9.9)).await, ["p1", "p2", "p3", "p4", "p5"]);
    assert_eq!(ids(&table, q().rating_gte(9.5).descending()).await, ["p7", "p6", "p5"]);
    assert_eq!(ids(&table, q().rating_eq(1000.0).name_eq("name of p7")).await, ["p7"]);
    assert_eq!(ids(&table, q().rating_eq(9.75).name_gt("name of p0")).await, ["p5"]);
    // Read back exactly.
    let all = table.query_all(q()).await.unwrap();
    assert_eq!(all.iter().map(|p| p.rating).collect::<Vec<_>>(), [-2.0, 0.25, 4.5, 9.0, 9.75, 10.0, 1e3]);

    // Page by page: each cursor holds the rating as a number and resumes exactly after it.
    let mut seen = Vec::new();
    let mut next = None;
    loop {
        let mut page_q = q().rating_gt(-100.0).limit(2);
        if let Some(c) = next.take() {
            page_q = page_q.after(c);
        }
        let page = table.query(page_q).await.unwrap();
        seen.extend(page.items.into_iter().map(|p| p.product_id));
        match page.next {
            Some(c) => next = Some(c.to_string().parse().unwrap()),
            None => break,
        }
    }
    assert_eq!(seen, ["p1", "p2", "p3", "p4", "p5", "p6", "p7"]);

    // The single-attribute forms: an f32 sort key, an f64 partition key.
    let mut light = product("w1", 1.0);
    light.price = 0.5;
    light.weight = Some(0.125);
    table.put(&light).await.unwrap();
    assert_eq!(ids(&table, Product::query_by_price("s1").price_lt(1.0)).await, ["w1"]);
    assert_eq!(ids(&table, Product::query_by_weight(0.125)).await, ["w1"]);

    // Refused with nothing sent: a write, an update and a query holding NaN or an infinity.
    let sent = table.requests_sent();
    let err = table.put(&product("bad", f64::NAN)).await.unwrap_err();
    assert!(matches!(err, Error::Validation(_)), "{err:?}");
    let err = table.update(Product::update(Product::key("p1")).set_rating(f64::INFINITY)).await.unwrap_err();
    assert!(matches!(err, Error::Validation(_)), "{err:?}");
    let err = table.query(q().rating_gte(f64::NAN)).await.unwrap_err();
    assert!(matches!(err, Error::Validation(_)), "{err:?}");
    let err = table.query_all(Product::query_by_weight(f64::NEG_INFINITY)).await.unwrap_err();
    assert!(matches!(err, Error::Validation(_)), "{err:?}");
    assert_eq!(table.requests_sent(), sent, "nothing was sent");
    assert_eq!(common::raw_items(&table).await.len(), 8, "no item was written");
}
