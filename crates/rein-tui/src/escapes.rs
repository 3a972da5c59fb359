//! Escape sequences in text a command printed: its SGR colours and attributes
//! (`ESC [ 31 m`, 256 colours, true colour) become the style of what follows; every
//! other sequence — cursor moves, titles, links, character sets — is dropped, so no
//! `[31m` junk reaches the screen.

use std::iter::Peekable;
use std::str::Chars;

use ratatui::style::{Color, Modifier, Style};

/// Read the rest of an escape sequence whose ESC was just read; an SGR sequence
/// changes `sgr` (the style the command set), anything else is skipped.
pub(crate) fn read(chars: &mut Peekable<Chars<'_>>, sgr: &mut Style) {
    match chars.next() {
        Some('[') => {
            let mut params = String::new();
            for c in chars.by_ref() {
                if ('@'..='~').contains(&c) {
                    if c == 'm' {
                        apply(&params, sgr);
                    }
                    break;
                }
                params.push(c);
            }
        }
        Some(']') => {
            while let Some(c) = chars.next() {
                if c == '\u{7}' || (c == '\u{1b}' && chars.next_if_eq(&'\\').is_some()) {
                    break;
                }
            }
        }
        // An intermediate byte, then the final one (`ESC ( B`: a character set).
        Some(' '..='/') => {
            chars.next();
        }
        _ => {}
    }
}

/// The basic colours by their SGR number (30–37 and 40–47 less the base).
const BASIC: [Color; 8] =
    [Color::Black, Color::Red, Color::Green, Color::Yellow, Color::Blue, Color::Magenta, Color::Cyan, Color::Gray];
const BRIGHT: [Color; 8] = [
    Color::DarkGray,
    Color::LightRed,
    Color::LightGreen,
    Color::LightYellow,
    Color::LightBlue,
    Color::LightMagenta,
    Color::LightCyan,
    Color::White,
];

/// Apply the SGR parameters `params` (`1;31`, `38;5;208`, `38;2;255;0;0`, empty = reset).
fn apply(params: &str, sgr: &mut Style) {
    let codes: Vec<u16> = params.split([';', ':']).map(|p| p.parse().unwrap_or(0)).collect();
    let mut i = 0;
    while i < codes.len() {
        let code = codes[i];
        match code {
            0 => *sgr = Style::default(),
            1 => *sgr = sgr.add_modifier(Modifier::BOLD),
            2 => *sgr = sgr.add_modifier(Modifier::DIM),
            3 => *sgr = sgr.add_modifier(Modifier::ITALIC),
            4 => *sgr = sgr.add_modifier(Modifier::UNDERLINED),
            7 => *sgr = sgr.add_modifier(Modifier::REVERSED),
            22 => *sgr = sgr.remove_modifier(Modifier::BOLD | Modifier::DIM),
            23 => *sgr = sgr.remove_modifier(Modifier::ITALIC),
            24 => *sgr = sgr.remove_modifier(Modifier::UNDERLINED),
            27 => *sgr = sgr.remove_modifier(Modifier::REVERSED),
            30..=37 => sgr.fg = Some(BASIC[usize::from(code - 30)]),
            39 => sgr.fg = None,
            40..=47 => sgr.bg = Some(BASIC[usize::from(code - 40)]),
            49 => sgr.bg = None,
            90..=97 => sgr.fg = Some(BRIGHT[usize::from(code - 90)]),
            100..=107 => sgr.bg = Some(BRIGHT[usize::from(code - 100)]),
            38 | 48 => {
                let colour = match codes.get(i + 1) {
                    Some(5) => {
                        i += 2;
                        codes.get(i).map(|n| Color::Indexed(*n as u8))
                    }
                    Some(2) => {
                        let rgb = codes.get(i + 2..i + 5).map(|c| Color::Rgb(c[0] as u8, c[1] as u8, c[2] as u8));
                        i += 4;
                        rgb
                    }
                    _ => None,
                };
                if code == 38 {
                    sgr.fg = colour.or(sgr.fg);
                } else {
                    sgr.bg = colour.or(sgr.bg);
                }
            }
            _ => {}
        }
        i += 1;
    }
}
