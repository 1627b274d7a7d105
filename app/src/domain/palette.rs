//! The fixed look of each seat: colour, colour name, gender and face. A seat's look is chosen by
//! its position, so a placeholder egg already wears the colour its agent will have; once worn,
//! a colour is the identity's and goes with it (recalled into another seat, it keeps it; a fork
//! wears a tint of its parent's).

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

/// The colour (hex, name) a newcomer in `seat` wears. An identity keeps its colour wherever it
/// sits, so a newcomer takes one nobody has: its seat's if no identity (seated elsewhere, or in
/// the Hall and so recalled some day) wears it, else the first such colour of the palette, else
/// a tint of its seat's that nobody seated wears; the seat's own only when all are taken. The
/// lead's gold is never given.
pub fn newcomer_color(seat: Seat, seated: &[&str], hall: &[&str]) -> Option<(String, String)> {
    let own = seat_style(seat)?;
    let unworn = |s: &&SeatStyle| {
        s.seat != LEAD_SEAT && !seated.contains(&s.color) && !hall.contains(&s.color)
    };
    if let Some(s) = Some(own)
        .filter(unworn)
        .or_else(|| PALETTE.iter().find(unworn))
    {
        return Some((s.color.to_string(), s.color_name.to_string()));
    }
    match fork_tint(own.color).filter(|t| !seated.contains(&t.as_str())) {
        Some(tint) => Some((tint, fork_tint_name(own.color_name))),
        None => Some((own.color.to_string(), own.color_name.to_string())),
    }
}

/// A fork's colour: its parent's, tinted a third of the way to white (or shaded a quarter of
/// the way to black, when the tint would be too pale to tell from the page): kin at a glance,
/// and never the parent's own. `None` for a colour that is not `#rrggbb`.
pub fn fork_tint(parent: &str) -> Option<String> {
    let hex = parent.strip_prefix('#').filter(|h| h.len() == 6)?;
    let mut rgb = [0u8; 3];
    for (i, c) in rgb.iter_mut().enumerate() {
        *c = u8::from_str_radix(hex.get(i * 2..i * 2 + 2)?, 16).ok()?;
    }
    let tint = rgb.map(|c| c + (255 - c) / 3);
    let mixed = match tint.iter().all(|&c| c >= 0xE0) {
        true => rgb.map(|c| c - c / 4),
        false => tint,
    };
    Some(format!("#{:02X}{:02X}{:02X}", mixed[0], mixed[1], mixed[2]))
}

/// The name of a fork's colour: its parent's, as a tint.
pub fn fork_tint_name(parent: &str) -> String {
    format!("{parent} tint")
}
