use dynamo_entity::Entity;

// Derive macros built for another interface than this `dynamo-entity` have: one clear error.
dynamo_entity::__private_check!(02);

// A facade of another version (its hidden module is `__private00`): the derive's output is its
// check's message and one unresolved import, not an error per generated item.
mod old_facade {
    #[macro_export]
    macro_rules! old_check {
        (00) => {};
        ($other:tt) => {
            compile_error!("`dynamo-entity-macros` does not match `dynamo-entity` (old facade)");
        };
    }
    pub use crate::old_check as __private_check;
    pub mod __private00 {}
}

#[derive(Entity)]
#[entity(crate = "crate::old_facade")]
#[pk = "USER#<user_id>"]
#[sk = "ORDER#<order_id>"]
pub struct UserOrder {
    pub user_id: String,
    pub order_id: u64,
}

fn main() {}
