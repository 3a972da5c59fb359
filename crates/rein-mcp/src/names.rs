//! Tool names as the model sees them: `mcp__<server>__<tool>`, every character outside
//! `[A-Za-z0-9_-]` made `_`. A name longer than 64 characters (the limit every backend
//! accepts) is shortened deterministically — a prefix and a hash of the whole name —
//! so that one long name cannot break every request; the mapping back is kept by the
//! tool itself.

/// The longest tool name rein offers.
pub const MAX_NAME: usize = 64;

fn clean(s: &str) -> String {
    s.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' }).collect()
}

/// `mcp__<server>__`: what every tool name of `server` starts with.
pub fn prefix(server: &str) -> String {
    format!("mcp__{}__", clean(server))
}

/// `mcp__<server>__<tool>`, at most [`MAX_NAME`] characters.
pub fn tool_name(server: &str, tool: &str) -> String {
    let full = format!("mcp__{}__{}", clean(server), clean(tool));
    if full.len() <= MAX_NAME {
        return full;
    }
    let hash = full.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
    let suffix = format!("_{:08x}", hash as u32);
    format!("{}{suffix}", &full[..MAX_NAME - suffix.len()])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_cleaned_and_long_ones_shortened_the_same_way_every_time() {
        assert_eq!(tool_name("my.probe server", "weird.name tool"), "mcp__my_probe_server__weird_name_tool");
        assert_eq!(tool_name("everything", "get-tiny-image"), "mcp__everything__get-tiny-image");
        let long = "a".repeat(70);
        let n = tool_name("probe", &long);
        assert_eq!(n.len(), MAX_NAME);
        assert_eq!(n, tool_name("probe", &long));
        assert_ne!(n, tool_name("probe", &"a".repeat(71)));
    }
}
