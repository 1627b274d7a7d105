//! **#team** (beside the grid): the channel the human and every agent speak in, newest last,
//! live from the replica (the page carries its newest messages; **Show older** fetches the
//! pages before, as a thread's do); a composer whose `@` completes the team's names (`@all`, the lead,
//! each seated agent). A post says whom it reached (and whom it did not: a sleeper's mail
//! waits; nobody by that name). A spectator reads it and cannot write.

use leptos::prelude::*;

use crate::contract::endpoints as e;
use crate::contract::{Delivery, SendRequest};
use crate::domain::channel::{completions, TEAM};
use crate::domain::docs::page::channel_owner;
use crate::domain::docs::{channel, SpeakerType};
use crate::domain::markdown;
use crate::live::use_live;
use crate::ui::when::When;

#[derive(Clone, PartialEq)]
struct Said {
    id: String,
    who: String,
    human: bool,
    text: String,
    at: i64,
}

/// The word being typed after an `@`, if the text ends in one.
fn typing_mention(text: &str) -> Option<&str> {
    let word = text.rsplit(|c: char| c.is_whitespace()).next()?;
    let typed = word.strip_prefix('@')?;
    (!typed.contains('@')).then_some(typed)
}

/// The channel; its lines and composer are fetched when first opened (`ui::lazy`).
#[component]
pub fn TeamChannel(#[prop(optional)] read_only: bool) -> impl IntoView {
    let live = use_live();
    let owner = channel_owner(TEAM);
    let count = Memo::new(move |_| {
        live.docs.with(|d| channel(d, TEAM).len()) + live.older_of(std::slice::from_ref(&owner))
    });
    view! {
        <super::lazy::LazyDetails class="panel team-channel" load=move || team_body(read_only)>
            "#team " <span class="count">{move || count.get().to_string()}</span>
        </super::lazy::LazyDetails>
    }
}

#[cfg_attr(lazy_parts, leptos::lazy)]
async fn team_body(read_only: bool) -> AnyView {
    view! { <Lines read_only=read_only/> }.into_any()
}

/// The channel's lines (older ones fetched on asking) and, unless `read_only`, its composer.
#[component]
fn Lines(read_only: bool) -> impl IntoView {
    let live = use_live();
    let lines = Memo::new(move |_| {
        live.docs.with(|d| {
            channel(d, TEAM)
                .iter()
                .map(|m| Said {
                    id: m.id.clone(),
                    who: m.speaker_name.clone(),
                    human: m.speaker_type == SpeakerType::Human,
                    text: m.text.clone(),
                    at: m.created_at,
                })
                .collect::<Vec<_>>()
        })
    });
    let owner = channel_owner(TEAM);
    let older = {
        let owner = owner.clone();
        Memo::new(move |_| live.older_of(std::slice::from_ref(&owner)))
    };
    let load = super::action::Action::new();
    let show_older = move |_| {
        super::older::load_older(live, vec![owner.clone()], load, || {});
    };
    view! {
        {move || (older.get() > 0).then(|| view! {
            <button type="button" class="show-older" disabled=move || load.busy.get()
                on:click=show_older.clone()>
                {format!("Show older ({})", older.get())}
            </button>
        })}
        <super::older::OlderFailed load/>
        <ol class="team-lines" aria-live="polite">
            <For each=move || lines.get() key=|l| l.id.clone() let:line>
                <li class="team-line" class:human=line.human data-message-id=line.id.clone()>
                    <span class="who">{line.who.clone()}</span>
                    " " <When at=line.at short=true/>
                    {match line.human {
                        true => view! { <p class="text">{line.text.clone()}</p> }.into_any(),
                        false => view! { <div class="text md" inner_html=markdown::render(&line.text)></div> }.into_any(),
                    }}
                </li>
            </For>
        </ol>
        {(!read_only).then(|| view! { <TeamComposer/> })}
    }
}

#[component]
fn TeamComposer() -> impl IntoView {
    let live = use_live();
    let text = RwSignal::new(String::new());
    let action = super::action::Action::new();
    let super::action::Action { busy, error } = action;
    let reached = RwSignal::new(None::<String>);
    // One key per message: a retry after a failure is the same post.
    let key = RwSignal::new(None::<String>);
    let offered = Memo::new(move |_| {
        let t = text.get();
        let typed = typing_mention(&t)?;
        let lead = live.lead_name.get_value();
        let names = live.docs.with(|d| completions(d, typed, &lead));
        (!names.is_empty()).then_some(names)
    });
    // The name the arrows point at in the offer; Tab or Enter takes it.
    let pointed = RwSignal::new(0usize);
    let complete = move |name: String| {
        text.update(|t| {
            if let Some(typed) = typing_mention(t) {
                let keep = t.len() - typed.len();
                t.truncate(keep);
                t.push_str(&name);
                t.push(' ');
            }
        });
    };
    let post = move || {
        let body = text.get_untracked();
        if body.trim().is_empty() || busy.get_untracked() {
            return;
        }
        let request = SendRequest {
            text: body,
            seat: None,
            target_agent: None,
            channel: Some(TEAM.to_string()),
        };
        reached.set(None);
        let once = key
            .get_untracked()
            .unwrap_or_else(crate::api::idempotency_key);
        key.set(Some(once.clone()));
        action.run(
            async move {
                let answer =
                    crate::api::call_once::<e::SendMessage>(&(), &request, Some(&once)).await?;
                text.set(String::new());
                key.set(None);
                let each: Vec<String> = answer
                    .mentioned
                    .iter()
                    .map(|m| match m.delivery {
                        Some(Delivery::Queued) => {
                            format!("{} (asleep: reads it on waking)", m.name)
                        }
                        Some(_) => m.name.clone(),
                        None => format!("{} (its inbox could not take it)", m.name),
                    })
                    .collect();
                let mut said = match each.is_empty() {
                    true => "Posted; it mentions nobody, so it is in no inbox.".to_string(),
                    false => format!("Posted; filed for {}.", each.join(", ")),
                };
                if !answer.nobody.is_empty() {
                    let who: Vec<String> = answer.nobody.iter().map(|n| format!("@{n}")).collect();
                    said.push_str(&format!(" Nobody is called {}.", who.join(", ")));
                }
                reached.set(Some(said));
                Ok(())
            },
            || {},
        );
    };
    view! {
        <form class="team-composer" on:submit=move |ev| { ev.prevent_default(); post(); }>
            <textarea
                rows="2"
                aria-label="Write to #team"
                placeholder="Write to #team; @Name or @all files it in their inboxes"
                prop:value=move || text.get()
                on:input=move |ev| {
                    text.set(event_target_value(&ev));
                    key.set(None);
                    pointed.set(0);
                }
                on:keydown=move |ev| {
                    let names = offered.get_untracked().unwrap_or_default();
                    let key = ev.key();
                    // While names are offered: arrows move among them, Tab or Enter takes one.
                    if !names.is_empty() {
                        let n = names.len();
                        match key.as_str() {
                            "ArrowDown" => pointed.update(|p| *p = (*p + 1) % n),
                            "ArrowUp" => pointed.update(|p| *p = (*p + n - 1) % n),
                            "Tab" | "Enter" if !ev.shift_key() => {
                                complete(names[pointed.get_untracked().min(n - 1)].clone());
                                pointed.set(0);
                            }
                            _ => return,
                        }
                        ev.prevent_default();
                        return;
                    }
                    if key == "Enter" && !ev.shift_key() {
                        ev.prevent_default();
                        post();
                    }
                }
            ></textarea>
            {move || offered.get().map(|names| view! {
                <ul class="mention-offer" role="listbox" aria-label="Mention">
                    {names.into_iter().enumerate().map(|(i, n)| {
                        let pick = n.clone();
                        view! {
                            // Chosen by the arrows and Tab or Enter in the box, or a click.
                            <li role="option" class="mention"
                                aria-selected=move || (pointed.get() == i).to_string()
                                on:click=move |_| complete(pick.clone())>
                                {format!("@{n}")}
                            </li>
                        }
                    }).collect_view()}
                </ul>
            })}
            <button type="submit" disabled=move || busy.get()>"Post"</button>
            {move || reached.get().map(|r| view! { <p class="reached">{r}</p> })}
            {move || error.get().map(|e| view! { <p class="error" role="alert">{e}</p> })}
        </form>
    }
}

#[cfg(test)]
mod tests {
    use super::typing_mention;

    #[test]
    fn the_mention_being_typed_is_the_last_word_after_an_at() {
        assert_eq!(typing_mention("hello @Ly"), Some("Ly"));
        assert_eq!(typing_mention("@"), Some(""));
        assert_eq!(typing_mention("hello @Lyra "), None);
        assert_eq!(typing_mention("mail lyra@x"), None);
        assert_eq!(typing_mention("hello"), None);
    }
}
