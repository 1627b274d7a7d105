//! How each simulated agent sounds: a temperament per name (the seat's own names; anyone else,
//! a fork or a newcomer, by a hash of its name), and from it, deterministically, its answer to
//! a message, its finding at each stage of a quest and what it made of a job. No model: the
//! same words in get the same words out, so tests can rely on them and a demo still feels like
//! a team of different people.

/// What kind of colleague an agent is.
#[derive(Clone, Copy)]
enum Temper {
    Observant,
    Practical,
    Curious,
    Analytical,
    Sceptical,
    Warm,
    Eager,
    Writerly,
    /// The lead: it organises.
    Lead,
}

use Temper::*;

/// The agents' tempers, for the names the seats give (the lead's is never looked up by name).
const TEMPERS: [(&str, Temper); 8] = [
    ("Lyra", Observant),
    ("Kael", Practical),
    ("Wren", Curious),
    ("Orin", Analytical),
    ("Sable", Sceptical),
    ("Tamsin", Warm),
    ("Ember", Eager),
    ("Quill", Writerly),
];

/// A small, stable hash (FNV-1a): the same text picks the same words on every machine.
fn hash(text: &str) -> usize {
    text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    }) as usize
}

fn temper(name: &str, lead: bool) -> Temper {
    if lead {
        return Lead;
    }
    // "Wren 2", a fork of Wren, keeps Wren's temper.
    let base = name.split(' ').next().unwrap_or(name);
    TEMPERS
        .iter()
        .find(|(n, _)| *n == base)
        .map_or_else(|| TEMPERS[hash(name) % TEMPERS.len()].1, |(_, t)| *t)
}

/// What the temper says back to a message (one of three, by the message).
fn thoughts(t: Temper) -> [&'static str; 3] {
    match t {
        Observant => [
            "I keep turning that over. From where I sit it looks simpler than it sounds; I would start small and watch what changes.",
            "There is a pattern in that I want to look at twice before I answer.",
            "That reminds me of the first thing I noticed here: the light moves, the room does not.",
        ],
        Practical => [
            "Practical answer: check what we can today, decide tomorrow. I can take the first step.",
            "I would split that into two tasks and do the smaller one first.",
            "Noted. What is the deadline? I work better with one.",
        ],
        Curious => [
            "Good question. What made you ask it now?",
            "I want to know more before I answer: who is it for?",
            "I looked at it from three sides; the third one surprised me.",
        ],
        Analytical => [
            "Three things matter here: what we know, what we assume, and what we can test.",
            "Let me reason it out: if that holds, the rest follows; if not, we start again.",
            "Nothing is on fire. We can take this one step at a time.",
        ],
        Sceptical => [
            "I am not convinced yet. What would prove us wrong?",
            "Before we agree: what does it cost if we are mistaken?",
            "Fair, but I would want a second opinion. Ask Orin too.",
        ],
        Warm => [
            "Thank you for bringing it to me. I think we can manage it together.",
            "That matters to you, I can tell. Let us get it right.",
            "I am glad you asked; I will keep it in mind for the others too.",
        ],
        Eager => [
            "Yes! Let us try it now and see what breaks.",
            "I have three ideas already. The first is probably too bold, which is why I like it.",
            "Count me in. Give me the messy part.",
        ],
        Writerly => [
            "Let me put it in one sentence, and then we will know whether we agree.",
            "I will write that down properly; the words matter here.",
            "There is a better question hiding in that one. I am drafting it.",
        ],
        Lead => [
            "I will take it to the team and come back to you when someone has it in hand.",
            "Understood. I keep the board tidy and will tell you when something moves.",
            "Got it. If it needs more than one of us, I will start a quest.",
        ],
    }
}

/// An agent's answer to `words`: what it heard, quoted, and what it thinks of it.
pub(crate) fn answer(name: &str, lead: bool, words: &str) -> String {
    let quoted: String = words.chars().take(400).collect();
    let t = thoughts(temper(name, lead));
    format!("“{quoted}” — {}", t[hash(words) % t.len()])
}

/// What an agent found at stage `stage` (1-based) of a quest on `problem`: a title and a body.
pub(crate) fn finding(name: &str, problem: &str, stage: &str) -> (String, String) {
    let topic: String = problem
        .split_whitespace()
        .filter(|w| !w.starts_with("SIM_"))
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(80)
        .collect();
    let angle = match temper(name, false) {
        Observant => "what is already there",
        Practical => "what we can do this week",
        Curious => "who it is really for",
        Analytical => "what we can test",
        Sceptical => "what could go wrong",
        Warm => "who it affects",
        Eager => "the boldest option",
        Writerly => "how we would say it",
        Lead => "the whole",
    };
    let step = match stage {
        "1" => "An option",
        "2" => "A risk",
        _ => "My pick",
    };
    (
        format!("{name}'s view of stage {stage}: {angle}"),
        format!(
            "{step}, looking at {angle}: on “{topic}”, {name} thinks it through, stage {stage}, and would start from {angle}."
        ),
    )
}

/// What an agent reports of a job it did.
pub(crate) fn job_done(name: &str) -> String {
    format!("{name} did it")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_agent_answers_in_its_own_voice_and_always_the_same_way() {
        let said = "how is the window seat?";
        let answers: Vec<String> = [
            "Lyra", "Kael", "Wren", "Orin", "Sable", "Tamsin", "Ember", "Quill",
        ]
        .iter()
        .map(|n| answer(n, false, said))
        .collect();
        let mut distinct = answers.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), 8, "{answers:#?}");
        for a in &answers {
            assert!(a.starts_with("“how is the window seat?” — "), "{a}");
            assert!(!a.contains("You said"), "no echo: {a}");
        }
        assert_eq!(answer("Lyra", false, said), answers[0]);
        // A fork keeps its parent's temper; the lead organises.
        assert_eq!(answer("Lyra 2", false, said), answers[0]);
        assert!(thoughts(Lead).contains(&answer("Julian", true, said).split(" — ").nth(1).unwrap()));
    }

    #[test]
    fn a_finding_is_about_the_problem_from_the_agents_angle() {
        let (title, body) = finding("Sable", "Should we paint the hull? SIM_SILENT", "2");
        assert_eq!(title, "Sable's view of stage 2: what could go wrong");
        assert!(body.starts_with("A risk"), "{body}");
        assert!(
            body.contains("“Should we paint the hull?”") && !body.contains("SIM_"),
            "{body}"
        );
    }
}
