//! `camber map`: from a building's own point list to a proposed mapping. Each column of a trend
//! export (or each point of a Brick model or Haystack grid) gets an equipment id, a class, a role
//! and a unit, with a confidence and the evidence behind it; the air handler that serves each box
//! comes from the model, else the names, else the data. The output is the mapping file that
//! `camber ingest --mapping` reads, for a person to review before ingest.

pub mod brick;
pub mod haystack;
pub mod model;
pub mod names;
pub mod output;
pub mod profile;
pub mod propose;
pub mod topology;
pub mod units;
