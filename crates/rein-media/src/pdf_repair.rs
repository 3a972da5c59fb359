//! A PDF whose cross-reference table is missing or points at the wrong offsets (a file
//! written by a careless tool, or edited by hand), read as common readers read it:
//! poppler and pdf.js warn and rebuild the table by scanning the file for its objects.
//! So does this: every `N G obj` at the start of a line, the last of each number
//! winning, and the catalogue from the last `/Root` the file names (else the object
//! whose type is `/Catalog`). The rebuilt table and trailer are appended, leaving every
//! object where it was; what is sent to the model is still the file as it is.

use regex::bytes::Regex;
use std::collections::BTreeMap;
use std::sync::LazyLock;

static OBJECT: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?m)^[ \t]*(\d{1,10})[ \t\r\n]+(\d{1,5})[ \t\r\n]+obj\b").ok());
static ROOT: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"/Root[ \t\r\n]*(\d{1,10})[ \t\r\n]+(\d{1,5})[ \t\r\n]+R").ok());
static CATALOG: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"/Type[ \t\r\n]*/Catalog\b").ok());

/// `bytes` with a cross-reference table rebuilt from its objects appended; `None` when
/// no object or no catalogue is found.
pub(crate) fn rebuilt(bytes: &[u8]) -> Option<Vec<u8>> {
    let (object, root, catalog) = (OBJECT.as_ref()?, ROOT.as_ref()?, CATALOG.as_ref()?);
    let number =
        |m: Option<regex::bytes::Match<'_>>| -> Option<u32> { std::str::from_utf8(m?.as_bytes()).ok()?.parse().ok() };
    // Object number → (generation, offset); the last definition wins, as in an update.
    let mut found: BTreeMap<u32, (u32, usize)> = BTreeMap::new();
    let mut starts: Vec<(usize, u32)> = Vec::new();
    for c in object.captures_iter(bytes) {
        let (Some(id), Some(generation), Some(whole)) = (number(c.get(1)), number(c.get(2)), c.get(1)) else {
            continue;
        };
        found.insert(id, (generation, whole.start()));
        starts.push((whole.start(), id));
    }
    let last = *found.keys().next_back()?;
    let named = root.captures_iter(bytes).last().and_then(|c| Some((number(c.get(1))?, number(c.get(2))?)));
    let root = named.filter(|(id, _)| found.contains_key(id)).or_else(|| {
        // The object that declares itself the catalogue: the text between its start and
        // the next object's.
        catalog.find_iter(bytes).last().and_then(|m| {
            let (_, id) = starts.iter().rev().find(|(at, _)| *at < m.start())?;
            found.get(id).map(|(generation, _)| (*id, *generation))
        })
    })?;
    let mut out = bytes.to_vec();
    if !out.ends_with(b"\n") {
        out.push(b'\n');
    }
    let table = out.len();
    out.extend_from_slice(format!("xref\n0 {}\n0000000000 65535 f \n", last + 1).as_bytes());
    for id in 1..=last {
        let row = match found.get(&id) {
            Some((generation, offset)) => format!("{offset:010} {generation:05} n \n"),
            None => "0000000000 00000 f \n".to_string(),
        };
        out.extend_from_slice(row.as_bytes());
    }
    let trailer =
        format!("trailer\n<< /Size {} /Root {} {} R >>\nstartxref\n{table}\n%%EOF\n", last + 1, root.0, root.1);
    out.extend_from_slice(trailer.as_bytes());
    Some(out)
}
