//! The colour themes `/theme` picks, with Claude Code's names: `dark` and `light` (for a
//! dark or a light terminal background), their `-daltonized` forms (blue and orange
//! instead of green and red, for colour-blind eyes) and their `-ansi` forms (only the
//! terminal's own sixteen colours). The theme is the settings' `theme` (the user's
//! settings, where `/theme NAME` saves it); every view takes its colours from
//! [`palette`], by role.

use std::sync::atomic::{AtomicU8, Ordering};

use ratatui::style::Color;

/// A theme by its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Theme {
    Dark,
    Light,
    DarkDaltonized,
    LightDaltonized,
    DarkAnsi,
    LightAnsi,
}

impl Theme {
    pub const ALL: [Theme; 6] =
        [Theme::Dark, Theme::Light, Theme::DarkDaltonized, Theme::LightDaltonized, Theme::DarkAnsi, Theme::LightAnsi];

    pub fn name(self) -> &'static str {
        match self {
            Theme::Dark => "dark",
            Theme::Light => "light",
            Theme::DarkDaltonized => "dark-daltonized",
            Theme::LightDaltonized => "light-daltonized",
            Theme::DarkAnsi => "dark-ansi",
            Theme::LightAnsi => "light-ansi",
        }
    }

    pub fn describe(self) -> &'static str {
        match self {
            Theme::Dark => "for a dark background",
            Theme::Light => "for a light background",
            Theme::DarkDaltonized => "dark background, colour-blind friendly (blue and orange)",
            Theme::LightDaltonized => "light background, colour-blind friendly (blue and orange)",
            Theme::DarkAnsi => "dark background, the terminal's own colours only",
            Theme::LightAnsi => "light background, the terminal's own colours only",
        }
    }

    pub fn parse(name: &str) -> Option<Theme> {
        Theme::ALL.into_iter().find(|t| t.name().eq_ignore_ascii_case(name.trim()))
    }

    fn palette(self) -> Palette {
        let rgb = |r, g, b| Color::Rgb(r, g, b);
        let ansi_dark = Palette {
            accent: Color::Cyan,
            warning: Color::Yellow,
            success: Color::Green,
            error: Color::Red,
            brand: Color::Magenta,
            muted: Color::Gray,
            link: Color::Blue,
        };
        match self {
            // The dark theme is the terminal's own colours, which its palette tunes for
            // its background.
            Theme::Dark | Theme::DarkAnsi => ansi_dark,
            Theme::DarkDaltonized => Palette { success: rgb(95, 175, 255), error: rgb(255, 175, 0), ..ansi_dark },
            Theme::Light => Palette {
                accent: rgb(0, 95, 175),
                warning: rgb(175, 95, 0),
                success: rgb(0, 135, 0),
                error: rgb(175, 0, 0),
                brand: rgb(135, 0, 175),
                muted: rgb(88, 88, 88),
                link: rgb(0, 0, 215),
            },
            Theme::LightDaltonized => {
                Palette { success: rgb(0, 95, 215), error: rgb(175, 95, 0), ..Theme::Light.palette() }
            }
            Theme::LightAnsi => Palette {
                accent: Color::Blue,
                warning: Color::Magenta,
                success: Color::Green,
                error: Color::Red,
                brand: Color::Magenta,
                muted: Color::DarkGray,
                link: Color::Blue,
            },
        }
    }
}

/// The colours of the views, by what they mean.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Palette {
    /// What is selected, code, a diff's hunk header.
    pub accent: Color,
    /// A question's title and frame, what waits for the person.
    pub warning: Color,
    /// Done, allowed, added lines.
    pub success: Color,
    /// Failed, refused, removed lines.
    pub error: Color,
    /// rein's own marks (the spinner, thinking).
    pub brand: Color,
    /// Secondary text.
    pub muted: Color,
    pub link: Color,
}

static CURRENT: AtomicU8 = AtomicU8::new(0);

/// Use `theme` from now on.
pub fn set(theme: Theme) {
    let i = Theme::ALL.iter().position(|t| *t == theme).unwrap_or(0);
    CURRENT.store(i as u8, Ordering::Relaxed);
}

/// The theme in use.
pub fn current() -> Theme {
    Theme::ALL.get(CURRENT.load(Ordering::Relaxed) as usize).copied().unwrap_or(Theme::Dark)
}

/// The colours of the theme in use.
pub fn palette() -> Palette {
    current().palette()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_theme_by_its_name_and_the_colour_blind_ones_pair_no_red_with_green() {
        for t in Theme::ALL {
            assert_eq!(Theme::parse(t.name()), Some(t));
        }
        assert_eq!(Theme::parse(" Light-ANSI "), Some(Theme::LightAnsi));
        assert_eq!(Theme::parse("solarized"), None);
        for t in [Theme::DarkDaltonized, Theme::LightDaltonized] {
            let p = t.palette();
            assert!(![Color::Red, Color::Green].contains(&p.success) && ![Color::Red, Color::Green].contains(&p.error));
        }
        // A light background gets no yellow (unreadable on white).
        assert!(Theme::LightAnsi.palette().warning != Color::Yellow && Theme::Light.palette().warning != Color::Yellow);
    }
}
