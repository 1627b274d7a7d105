//! The browser's replica starts from a page's snapshot that leaves history out and follows the
//! log with the same reducer: it must come out as the server does (on the logs of `props`).

use super::super::docs::{hall, identities, knowledge_doc_id, page, Doc, Docs};
use super::props::{log, replay, through_json};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// A page's snapshot leaves history out (`page::history_for`: old knowledge versions,
    /// the Hall's soul versions), yet the replica it starts applies every later event as the
    /// server does: every other document, and each identity's current knowledge, come out the
    /// same.
    #[test]
    fn a_replica_without_the_history_applies_every_event_as_the_server_does(
        events in log(),
        cut in any::<prop::sample::Index>(),
    ) {
        let at = cut.index(events.len() + 1);
        let page = page::history_for(
            through_json(&replay(&Docs::new(), &events[..at])),
            None,
        );
        let replica = replay(&page, &events[at..]);
        let server = replay(&Docs::new(), &events);
        let without_history = |docs: &Docs| -> Docs {
            docs.iter()
                .filter(|(_, d)| !matches!(d, Doc::Soul(_) | Doc::Knowledge(_)))
                .map(|(k, d)| (k.clone(), d.clone()))
                .collect()
        };
        prop_assert_eq!(without_history(&replica), without_history(&server));
        let current = |docs: &Docs| -> Vec<Doc> {
            identities(docs)
                .chain(hall(docs))
                .filter_map(|d| {
                    docs.get(&knowledge_doc_id(&d.stable_id(), d.vault_version))
                        .cloned()
                })
                .collect()
        };
        prop_assert_eq!(current(&replica), current(&server));
    }
}
