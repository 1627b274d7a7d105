//! The family tree an identity belongs to, from its oldest known ancestor down: each one linked
//! to its page, where it is (a seat or the Hall), when it was forked, and whom it was adopted
//! from when its parent retired.

use crate::ui::when::When;
use leptos::prelude::*;

use crate::domain::life::LineageNode;

#[component]
pub fn Tree(root: LineageNode, current: String) -> impl IntoView {
    let alone = root.children.is_empty();
    view! {
        <ul class="lineage" data-alone=alone.then_some("true")>
            {node(root, &current)}
        </ul>
        {alone.then(|| view! { <p class="muted">"No parent and no forks yet."</p> })}
    }
}

fn node(n: LineageNode, current: &str) -> AnyView {
    let here = n.id == current;
    let name = n.name.clone().unwrap_or_else(|| "A nameless one".into());
    let place = match (n.seat, n.retired_at) {
        (_, Some(at)) => view! { "in the Hall since " <When at=at/> }.into_any(),
        (Some(seat), None) => format!("seat {}", seat + 1).into_any(),
        (None, None) => ().into_any(),
    };
    let forked = n.forked_at.map(|at| view! { " · forked " <When at=at/> });
    let adopted = n.adopted_from.as_ref().map(|from| {
        view! {
            " · adopted when "
            <a href=format!("/agents/{from}")>"its parent"</a>
            " retired"
        }
    });
    let children = (!n.children.is_empty()).then(|| {
        let items = n
            .children
            .into_iter()
            .map(|c| node(c, current))
            .collect_view();
        view! { <ul>{items}</ul> }
    });
    view! {
        <li data-identity=n.id.clone() aria-current=here.then_some("page")>
            <a href=format!("/agents/{}", n.id)>{name}</a>
            <span class="muted">" · " {place} {forked}</span>
            {adopted}
            {children}
        </li>
    }
    .into_any()
}
