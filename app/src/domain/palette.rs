//! The fixed look of each seat: colour, colour name, gender and face. A seat's look is chosen by
//! its position, so a placeholder egg already wears the colour its agent will have.

use serde::{Deserialize, Serialize};

use super::{Seat, LEAD_SEAT, SEATS};

/// Which eyes and mouth a face is drawn with.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FaceVariant {
    pub eyes: String,
    pub mouth: String,
}

/// The look of one seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeatStyle {
    pub seat: Seat,
    pub color: &'static str,
    pub color_name: &'static str,
    pub gender: &'static str,
    pub eyes: &'static str,
    pub mouth: &'static str,
}

impl SeatStyle {
    pub fn face(&self) -> FaceVariant {
        FaceVariant {
            eyes: self.eyes.to_string(),
            mouth: self.mouth.to_string(),
        }
    }
}

/// Eye shapes the UI knows how to draw.
pub const EYES: &[&str] = &["standard", "round", "sleepy", "wide", "bright"];
/// Mouth shapes the UI knows how to draw.
pub const MOUTHS: &[&str] = &["gentle", "smile", "grin", "calm", "open"];

/// The lead's colour: gold, in the centre.
pub const LEAD_COLOR: &str = "#FFD600";

const PALETTE: [SeatStyle; SEATS as usize] = [
    style(0, "#C9B1E8", "Violet Heaven", "woman", "standard", "gentle"),
    style(1, "#5BC0EB", "Glacier Blue", "man", "round", "smile"),
    style(2, "#9BE564", "Spring Moss", "woman", "wide", "grin"),
    style(3, "#FF8C61", "Ember Coral", "man", "sleepy", "calm"),
    style(LEAD_SEAT, LEAD_COLOR, "Gold", "man", "bright", "smile"),
    style(5, "#F25F9E", "Orchid Pink", "woman", "bright", "open"),
    style(6, "#3DDC97", "Jade Mint", "man", "standard", "grin"),
    style(7, "#FF6B6B", "Rose Flame", "woman", "round", "calm"),
    style(8, "#6C8EF5", "Cobalt Dusk", "man", "wide", "gentle"),
];

const fn style(
    seat: Seat,
    color: &'static str,
    color_name: &'static str,
    gender: &'static str,
    eyes: &'static str,
    mouth: &'static str,
) -> SeatStyle {
    SeatStyle {
        seat,
        color,
        color_name,
        gender,
        eyes,
        mouth,
    }
}

/// The style of a seat, or `None` for a position outside the grid.
pub fn seat_style(seat: Seat) -> Option<&'static SeatStyle> {
    PALETTE.get(seat as usize)
}

/// All nine seats in grid order.
pub fn palette() -> &'static [SeatStyle] {
    &PALETTE
}
