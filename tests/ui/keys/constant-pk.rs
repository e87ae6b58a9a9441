use dynamo_entity::Entity;

#[derive(Entity)]
#[pk = "LEADERBOARD"]
#[sk = "SCORE#<score>"]
pub struct Score {
    pub score: u32,
}

fn main() {}
