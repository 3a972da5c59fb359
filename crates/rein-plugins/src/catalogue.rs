//! What the known marketplaces offer, beside what is installed: the lists a person
//! browses (`/plugin`, `rein plugin browse`), and the short forms they type — a plugin
//! named without its marketplace when only one offers it, an uninstall without
//! `--scope` when it is installed in one scope only.

use crate::ops::{self, Context};
use crate::{PluginError, Result, marketplace};

/// One plugin a marketplace offers.
#[derive(Debug, Clone)]
pub struct Offer {
    pub marketplace: String,
    pub name: String,
    pub description: String,
    pub version: Option<String>,
    /// The scopes it is installed in for this project (empty: not installed).
    pub installed: Vec<String>,
}

impl Offer {
    /// `name@marketplace`.
    pub fn id(&self) -> String {
        format!("{}@{}", self.name, self.marketplace)
    }
}

/// Every plugin the known marketplaces offer (all, or `only` that one's), in order; a
/// marketplace that cannot be read is reported by name.
pub fn offered(ctx: &Context, only: Option<&str>) -> Result<Vec<Offer>> {
    let installed = ops::list(ctx)?;
    let mut out = Vec::new();
    let known = ops::marketplace_list(ctx)?;
    if let Some(name) = only
        && !known.iter().any(|(n, ..)| n == name)
    {
        return Err(PluginError::Invalid(format!("marketplace \"{name}\" is not known (/plugin marketplace list)")));
    }
    for (name, _, location) in known {
        if only.is_some_and(|o| o != name) {
            continue;
        }
        let market = marketplace::read(&location)?;
        for entry in market.plugins {
            let id = format!("{}@{name}", entry.name);
            out.push(Offer {
                marketplace: name.clone(),
                installed: installed.iter().filter(|l| l.id == id).map(|l| l.scope.clone()).collect(),
                description: entry.description.unwrap_or_default(),
                version: entry.version,
                name: entry.name,
            });
        }
    }
    Ok(out)
}

/// `spec` as `name@marketplace`: as typed when it names its marketplace, else the one
/// marketplace that offers it.
pub fn full_spec(ctx: &Context, spec: &str) -> Result<String> {
    if spec.contains('@') {
        return Ok(spec.to_string());
    }
    let offers: Vec<Offer> = offered(ctx, None)?.into_iter().filter(|o| o.name == spec).collect();
    match offers.as_slice() {
        [one] => Ok(one.id()),
        [] => Err(PluginError::Invalid(format!(
            "no known marketplace offers \"{spec}\" (/plugin browse lists what they offer)"
        ))),
        many => Err(PluginError::Invalid(format!(
            "\"{spec}\" is offered by several marketplaces: name one of {}",
            many.iter().map(Offer::id).collect::<Vec<_>>().join(", ")
        ))),
    }
}

/// The scope `spec` is installed in for this project, when it is installed in one.
pub fn installed_scope(ctx: &Context, spec: &str) -> Result<String> {
    let scopes: Vec<String> = ops::list(ctx)?.into_iter().filter(|l| l.id == spec).map(|l| l.scope).collect();
    match scopes.as_slice() {
        [one] => Ok(one.clone()),
        [] => Err(PluginError::Invalid(format!("plugin \"{spec}\" is not installed"))),
        many => Err(PluginError::Invalid(format!(
            "\"{spec}\" is installed in the {} scopes: say which with --scope",
            many.join(" and ")
        ))),
    }
}

/// The installed plugins that came from marketplace `name`.
pub fn installed_from(ctx: &Context, name: &str) -> Result<Vec<String>> {
    let suffix = format!("@{name}");
    let mut ids: Vec<String> = ops::list(ctx)?.into_iter().map(|l| l.id).filter(|id| id.ends_with(&suffix)).collect();
    ids.dedup();
    Ok(ids)
}
