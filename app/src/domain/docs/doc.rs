//! `Doc`, any document of the store: one variant per known type (declared once, below), and
//! every document of a type this version does not know kept verbatim (`Other`).

use super::budget::{BudgetDoc, TYPE_BUDGET};
use super::talk::{TalkDoc, TYPE_TALK};
use std::collections::BTreeMap;

use serde::{de::Error as _, Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use super::super::permissions::{PermissionDoc, TYPE_PERMISSION};
use super::super::Seat;
use super::{
    AgentIdentity, ArtifactDoc, ClaudeSessionDoc, FindingDoc, InviteDoc, JobDoc, KnowledgeDoc,
    LedgerDoc, MessageDoc, ProjectDoc, QuestDoc, SoulDoc, WatchDoc, WorkCommitDoc, WorktreeDoc,
    TYPE_ARTIFACT, TYPE_CLAUDE_SESSION, TYPE_FINDING, TYPE_HALL, TYPE_IDENTITY, TYPE_INVITE,
    TYPE_JOB, TYPE_KNOWLEDGE, TYPE_LEDGER, TYPE_MESSAGE, TYPE_PROJECT, TYPE_QUEST, TYPE_SOUL,
    TYPE_WATCH, TYPE_WORKTREE, TYPE_WORK_COMMIT,
};

/// Declares `Doc` with one variant per known document type (`Box<T> => T` for a boxed one):
/// its `type` string, and the accessor that borrows it.
macro_rules! documents {
    ($($variant:ident($ty:ty => $target:ty) = $type_name:expr, $as:ident;)*) => {
        /// Any document of the store. Types this version does not know are kept verbatim.
        #[derive(Clone, Debug, PartialEq)]
        pub enum Doc {
            $($variant($ty),)*
            Other(Value),
        }

        /// The `type` strings this version knows.
        const KNOWN: &[&str] = &[$($type_name),*];

        impl Doc {
            pub fn id(&self) -> Option<&str> {
                match self {
                    $(Doc::$variant(d) => Some(&d.id),)*
                    Doc::Other(v) => v.get("_id").and_then(Value::as_str),
                }
            }

            $(pub fn $as(&self) -> Option<&$target> {
                match self {
                    Doc::$variant(d) => Some(std::borrow::Borrow::<$target>::borrow(d)),
                    _ => None,
                }
            })*

            fn type_name(&self) -> Option<&str> {
                match self {
                    $(Doc::$variant(_) => Some($type_name),)*
                    Doc::Other(_) => None,
                }
            }

            /// A known type's fields (without `type`) as its variant.
            fn parse_known(ty: &str, value: Value) -> Result<Self, serde_json::Error> {
                $(if ty == $type_name {
                    return serde_json::from_value(value).map(Doc::$variant);
                })*
                Ok(Doc::Other(value))
            }

            fn fields(&self) -> Result<Value, serde_json::Error> {
                match self {
                    $(Doc::$variant(d) => serde_json::to_value(d),)*
                    Doc::Other(v) => Ok(v.clone()),
                }
            }
        }
    };
}

// Every message is a document (a team has hundreds of thousands) and a variant is as large as
// the largest: the ones larger than a message (the identity: 640 bytes against a message's 192)
// are boxed, so a message does not carry their size (`tests/docs.rs` holds `Doc` to it).
documents! {
    Identity(Box<AgentIdentity> => AgentIdentity) = TYPE_IDENTITY, as_identity;
    Hall(Box<AgentIdentity> => AgentIdentity) = TYPE_HALL, as_hall;
    Message(MessageDoc => MessageDoc) = TYPE_MESSAGE, as_message;
    Soul(SoulDoc => SoulDoc) = TYPE_SOUL, as_soul;
    Permission(Box<PermissionDoc> => PermissionDoc) = TYPE_PERMISSION, as_permission;
    Ledger(LedgerDoc => LedgerDoc) = TYPE_LEDGER, as_ledger;
    ClaudeSession(Box<ClaudeSessionDoc> => ClaudeSessionDoc) = TYPE_CLAUDE_SESSION, as_claude_session;
    Knowledge(KnowledgeDoc => KnowledgeDoc) = TYPE_KNOWLEDGE, as_knowledge;
    WorkCommit(WorkCommitDoc => WorkCommitDoc) = TYPE_WORK_COMMIT, as_work_commit;
    Quest(Box<QuestDoc> => QuestDoc) = TYPE_QUEST, as_quest;
    Finding(Box<FindingDoc> => FindingDoc) = TYPE_FINDING, as_finding;
    Artifact(ArtifactDoc => ArtifactDoc) = TYPE_ARTIFACT, as_artifact;
    Job(Box<JobDoc> => JobDoc) = TYPE_JOB, as_job;
    Project(Box<ProjectDoc> => ProjectDoc) = TYPE_PROJECT, as_project;
    Worktree(Box<WorktreeDoc> => WorktreeDoc) = TYPE_WORKTREE, as_worktree;
    Invite(Box<InviteDoc> => InviteDoc) = TYPE_INVITE, as_invite;
    Watch(Box<WatchDoc> => WatchDoc) = TYPE_WATCH, as_watch;
    Budget(Box<BudgetDoc> => BudgetDoc) = TYPE_BUDGET, as_budget;
    Talk(Box<TalkDoc> => TalkDoc) = TYPE_TALK, as_talk;
}

impl Doc {
    /// An identity's document: a seat's, or (its id `hall:…`) the Hall's.
    pub fn of_identity(who: AgentIdentity) -> Doc {
        match who.id.starts_with("hall:") {
            true => Doc::Hall(Box::new(who)),
            false => Doc::Identity(Box::new(who)),
        }
    }

    /// Parses a stored document. Known types with missing or malformed fields fail; a document
    /// of an unknown type is kept as it is.
    pub fn from_value(mut value: Value) -> Result<Self, serde_json::Error> {
        let Some(obj) = value.as_object_mut() else {
            return Err(serde_json::Error::custom(
                "a document must be a JSON object",
            ));
        };
        let ty = obj.get("type").and_then(Value::as_str).map(str::to_owned);
        let Some(ty) = ty.filter(|t| KNOWN.contains(&t.as_str())) else {
            return Ok(Doc::Other(value));
        };
        obj.remove("type");
        // Lazy schema evolution: a Hall entry stored before it had its own type.
        let hall = obj
            .get("_id")
            .and_then(Value::as_str)
            .is_some_and(|id| id.starts_with("hall:"));
        let ty = match ty == TYPE_IDENTITY && hall {
            true => TYPE_HALL.to_string(),
            false => ty,
        };
        // Lazy schema evolution: an old identity may lack `gridPosition`; its id has it.
        if ty == TYPE_IDENTITY && !obj.contains_key("gridPosition") {
            if let Some(pos) = obj
                .get("_id")
                .and_then(Value::as_str)
                .and_then(|id| id.strip_prefix("agent-identity:"))
                .and_then(|p| p.parse::<Seat>().ok())
            {
                obj.insert("gridPosition".into(), pos.into());
            }
        }
        Doc::parse_known(&ty, value)
    }

    pub fn to_value(&self) -> Value {
        let mut value = self.fields().expect("documents serialize to JSON objects");
        if let (Some(obj), Some(ty)) = (value.as_object_mut(), self.type_name()) {
            obj.insert("type".into(), ty.into());
        }
        value
    }
}

impl Serialize for Doc {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_value().serialize(s)
    }
}

impl<'de> Deserialize<'de> for Doc {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Doc::from_value(Value::deserialize(d)?).map_err(D::Error::custom)
    }
}

/// All documents by id. A `BTreeMap` keeps iteration deterministic on every platform.
pub type Docs = BTreeMap<String, Doc>;

/// A write the reducer asks for. There are no deletes: documents only move between states.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DocWrite {
    pub id: String,
    pub doc: Doc,
}

/// Applies writes to a document map.
pub fn commit(docs: &mut Docs, writes: Vec<DocWrite>) {
    for w in writes {
        docs.insert(w.id, w.doc);
    }
}
