//! What a semantic model (a Brick graph or a Haystack grid) says about a building, in one shape,
//! so the proposer treats both alike.

/// A point the model describes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ModelPoint {
    /// Names the export may use for this point's column, most specific first: a time-series id,
    /// a label or `dis`, the entity's own id or local name. The proposer matches them exactly,
    /// then ignoring case and separators.
    pub keys: Vec<String>,
    /// The camber role the model's class or tags give, when they give one.
    pub role: Option<String>,
    /// How sure the model's statement is, 0-1: a class or tag set that names the role directly
    /// 0.95; an alias class, or one resolved through its owner, 0.85-0.9.
    pub confidence: f64,
    /// What the model said, for a person to check: `brick:Supply_Air_Temperature_Sensor`,
    /// `haystack: discharge air temp sensor`.
    pub evidence: String,
    /// When `role` is `None`: why the model's statement gives no role (one line).
    pub why_not: Option<String>,
    /// The equipment that owns the point: an `id` of `Model::equips`.
    pub equip: Option<String>,
    /// The declared unit as the model spells it (`°F`, `DEG_F`, `gal/min`), if any.
    pub unit: Option<String>,
}

/// Equipment the model describes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ModelEquip {
    /// The name a person knows it by (a label, `dis` or `navName`, else the entity's local name or
    /// id), usable as a camber equipment id.
    pub id: String,
    /// The camber class (`AHU`, `VAV`, `FCU`, `CHILLER`, `BOILER`, `COOLING_TOWER`, `PUMP`,
    /// `HEAT_PUMP`, `CHW_PLANT`, `HW_PLANT`, `METER`, `WEATHER`, ...), when the model's class or
    /// markers name one camber knows.
    pub class: Option<String>,
    /// What the model said: `brick:Air_Handling_Unit`, `haystack: ahu equip`.
    pub evidence: String,
}

/// A served-by edge: `parent` feeds `child` (air handler to box, plant to chiller).
#[derive(Clone, Debug, PartialEq)]
pub struct Feed {
    pub parent: String,
    pub child: String,
    /// What the model said: `brick:feeds`, `haystack: ahuRef`.
    pub evidence: String,
}

/// Everything one model says.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Model {
    /// `brick` or `haystack`.
    pub source: &'static str,
    pub points: Vec<ModelPoint>,
    pub equips: Vec<ModelEquip>,
    pub feeds: Vec<Feed>,
}
