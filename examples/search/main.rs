//! A per-tenant document search: `cargo run --example search`.
//!
//! One table holds each tenant's documents (with an embedding and a vector index) and its
//! notes. The embedded engine serves vector indexes and `SearchVectors` as DynamoDB does, so the
//! search runs for real: the request it sends is printed, then its answer.

use dynamo_entity::{Entity, Table, TableDefinition};

#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "TENANT#<tenant_id>"]
#[sk = "DOC#<doc_id>"]
#[entity(tenant = "tenant_id", query = "docs")]
#[vector(index = "Similar", field = "embedding", dimensions = 4, distance = "cosine", hash = "tenant_id",
         filter = ["category", "price"], query = "similar")]
pub struct Doc {
    pub tenant_id: String,
    pub doc_id: String,
    pub title: String,
    pub category: String,
    pub price: f64,
    pub embedding: Vec<f32>,
}

/// The tenant's other items, in the same partitions.
#[derive(Entity, Debug, Clone, PartialEq)]
#[pk = "TENANT#<tenant_id>"]
#[sk = "NOTE#<note_id>"]
#[entity(tenant = "tenant_id")]
pub struct Note {
    pub tenant_id: String,
    pub note_id: String,
    pub text: String,
}

fn doc(tenant: &str, id: &str, title: &str, category: &str, price: f64, embedding: [f32; 4]) -> Doc {
    Doc {
        tenant_id: tenant.into(),
        doc_id: id.into(),
        title: title.into(),
        category: category.into(),
        price,
        embedding: embedding.to_vec(),
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let definition = TableDefinition::from_entities(&[Doc::SCHEMA, Note::SCHEMA])?;
    let client = dynamo_entity::local::client().await?;
    let table = Table::new(client, format!("search-{}", std::process::id()));
    table.create_table_from(&definition).await?;
    println!("table {} created; CreateTable carried its vector index:", table.name());
    println!(
        "{}",
        definition
            .to_markdown(table.name())
            .lines()
            .filter(|l| l.starts_with("| Similar"))
            .collect::<Vec<_>>()
            .join("\n")
    );

    let acme = table.for_tenant("acme");
    for d in [
        doc("acme", "d1", "Dishwasher manual", "manuals", 12.5, [0.9, 0.1, 0.0, 0.0]),
        doc("acme", "d2", "Dryer manual", "manuals", 9.0, [0.7, 0.3, 0.1, 0.0]),
        doc("acme", "d3", "Lemon tart", "recipes", 4.0, [0.0, 0.1, 0.9, 0.2]),
    ] {
        acme.put(&d).await?;
    }
    acme.put(&Note { tenant_id: "acme".into(), note_id: "n1".into(), text: "renew the licence".into() }).await?;
    let docs = acme.query_all(Doc::query_docs("acme")).await?;
    println!("\nacme's documents (its note stepped over): {}", docs.len());

    // A vector of the wrong length is refused before anything is sent.
    let wrong = acme.search(Doc::search_similar("acme", &[1.0, 0.0])).await;
    println!("a 2-dimension query vector: {}", wrong.map(|_| "sent?".to_owned()).unwrap_or_else(|e| e.to_string()));
    let other = acme.search(Doc::search_similar("globex", &[1.0, 0.0, 0.0, 0.0])).await;
    println!(
        "another tenant's search on acme's handle: {}",
        other.map(|_| "sent?".to_owned()).unwrap_or_else(|e| e.to_string())
    );

    // The search itself: the request it sends, then the engine's answer.
    let search = Doc::search_similar("acme", &[0.8, 0.2, 0.0, 0.0]).category().eq("manuals").top_k(5);
    let request = search.request()?;
    println!("\nthe SearchVectors request:");
    println!("  IndexName: {}", request.index_name);
    println!("  SearchVector: {:?}", request.search_vector);
    println!("  SearchConditionExpression: {}", request.search_condition_expression.as_deref().unwrap_or(""));
    let mut names: Vec<_> = request.expression_attribute_names.iter().collect();
    names.sort();
    println!("  ExpressionAttributeNames: {names:?}");
    let mut values: Vec<_> = request.expression_attribute_values.iter().collect();
    values.sort_by_key(|(k, _)| k.as_str());
    println!("  ExpressionAttributeValues: {values:?}");
    println!("  TopK: {}", request.top_k);
    let hits = acme.search(search).await?;
    println!("\nacme's manuals nearest the vector, best first (the vector itself is not returned):");
    for (d, score) in &hits {
        println!("  {:<4} {:<20} score {score:.4}", d.doc_id, d.title);
    }
    assert_eq!(hits.iter().map(|(d, _)| d.doc_id.as_str()).collect::<Vec<_>>(), ["d1", "d2"]);
    Ok(())
}
