//! Agent text as Markdown, rendered to HTML that is safe to insert: raw HTML in the source is
//! shown as text, and links keep only http(s) and mailto targets. An image loads nothing: one
//! whose picture is inline (`data:image/…`, not SVG) is shown, any other becomes a link with
//! its words (an image of the server's own URL made every view of the message ask for it: a
//! whole-team export for each one; of another site's, a tracking pixel).

use pulldown_cmark::{html, CowStr, Event, Options, Parser, Tag, TagEnd};

/// Renders Markdown to sanitised HTML.
pub fn render(markdown: &str) -> String {
    let options =
        Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TABLES | Options::ENABLE_TASKLISTS;
    // Whether each open image is shown (true) or became a link (false).
    let mut images: Vec<bool> = Vec::new();
    let events = Parser::new_ext(markdown, options).map(|event| match event {
        // Raw HTML never reaches the page as markup.
        Event::Html(raw) | Event::InlineHtml(raw) => Event::Text(raw),
        Event::Start(Tag::Link {
            link_type,
            dest_url,
            title,
            id,
        }) => Event::Start(Tag::Link {
            link_type,
            dest_url: safe_url(dest_url),
            title,
            id,
        }),
        Event::Start(Tag::Image {
            link_type,
            dest_url,
            title,
            id,
        }) => {
            let inline = inline_picture(&dest_url);
            images.push(inline);
            match inline {
                true => Event::Start(Tag::Image {
                    link_type,
                    dest_url,
                    title,
                    id,
                }),
                false => Event::Start(Tag::Link {
                    link_type,
                    dest_url: safe_url(dest_url),
                    title,
                    id,
                }),
            }
        }
        Event::End(TagEnd::Image) => match images.pop() {
            Some(false) => Event::End(TagEnd::Link),
            _ => Event::End(TagEnd::Image),
        },
        other => other,
    });
    let mut out = String::with_capacity(markdown.len() * 3 / 2);
    html::push_html(&mut out, events);
    out
}

/// A picture carried in the URL itself, in a raster format: it loads nothing and runs nothing.
fn inline_picture(url: &str) -> bool {
    let lower = url.trim_start().to_ascii_lowercase();
    [
        "data:image/png",
        "data:image/jpeg",
        "data:image/gif",
        "data:image/webp",
    ]
    .iter()
    .any(|p| lower.starts_with(p))
        && !lower.chars().any(|c| c.is_ascii_whitespace() && c != ' ')
}

fn safe_url(url: CowStr<'_>) -> CowStr<'_> {
    // Browsers drop tabs and newlines inside URLs and read `\` as `/`: judge what they will.
    let lower: String = url
        .trim()
        .chars()
        .filter(|c| !c.is_ascii_whitespace() && !c.is_control())
        .map(|c| {
            if c == '\\' {
                '/'
            } else {
                c.to_ascii_lowercase()
            }
        })
        .collect();
    let allowed = ["http://", "https://", "mailto:"]
        .iter()
        .any(|p| lower.starts_with(p))
        || lower.starts_with('#')
        || lower.starts_with('/') && !lower.starts_with("//");
    if allowed {
        url
    } else {
        CowStr::Borrowed("#")
    }
}

#[cfg(test)]
mod tests {
    use super::render;
    use proptest::prelude::*;

    #[test]
    fn renders_common_markdown() {
        assert_eq!(
            render("**bold** and `code`"),
            "<p><strong>bold</strong> and <code>code</code></p>\n"
        );
        assert!(render("- a\n- b").contains("<li>a</li>"));
        assert!(render("```\nfn x() {}\n```").contains("<pre><code>fn x() {}"));
    }

    #[test]
    fn raw_html_is_text() {
        let out = render("<script>alert(1)</script>\n\nhi <img src=x onerror=alert(1)>");
        assert!(!out.contains("<script"), "{out}");
        assert!(!out.contains("<img"), "{out}");
        assert!(out.contains("&lt;script&gt;"), "{out}");
    }

    #[test]
    fn dangerous_links_are_defused() {
        let out =
            render("[x](javascript:alert(1)) [y](https://example.com) ![z](data:text/html,hi)");
        assert!(!out.contains("javascript:"), "{out}");
        assert!(!out.contains("data:"), "{out}");
        assert!(out.contains("href=\"https://example.com\""));
    }

    #[test]
    fn a_link_that_a_browser_reads_as_another_site_is_defused() {
        for link in ["/\\evil.com", "/\t/evil.com", "//evil.com", " //evil.com"] {
            let out = render(&format!("[x](<{link}>)"));
            let links = out.matches("href=\"").count();
            assert_eq!(links, out.matches("href=\"#\"").count(), "{link:?}: {out}");
        }
        assert!(render("[home](/agents/3)").contains("href=\"/agents/3\""));
    }

    #[test]
    fn an_image_loads_nothing_from_the_server_or_elsewhere() {
        for url in [
            "/api/export",
            "/api/agents/1/bundle",
            "/?at=1",
            "https://tracker.example/p.gif",
            "//evil.example/x.png",
            "data:image/svg+xml,<svg/>",
            "data:text/html,hi",
        ] {
            let out = render(&format!("![the team](<{url}>)"));
            assert!(!out.contains("<img"), "{url}: {out}");
            assert!(out.contains("the team"), "{url}: the words stay: {out}");
        }
        let out = render("![a dot](data:image/png;base64,iVBORw0KGgo=) after");
        assert!(
            out.contains("<img src=\"data:image/png;base64,iVBORw0KGgo=\""),
            "{out}"
        );
        assert!(out.contains("after"), "{out}");
        // Nested in a link, and an image inside an image's words.
        let out = render("[![x](/api/export)](/agents/1) ![![y](/a)](/b)");
        assert!(!out.contains("<img"), "{out}");
    }

    proptest! {
        #[test]
        fn no_input_produces_markup_we_did_not_choose(s in "\\PC{0,200}") {
            let out = render(&s).to_ascii_lowercase();
            prop_assert!(!out.contains("<script"));
            prop_assert!(!out.contains("<iframe"));
            prop_assert!(!out.contains("href=\"javascript:"));
            prop_assert!(!out.contains("src=\"javascript:"));
            prop_assert!(!out.contains("<img src=\"/"));
            prop_assert!(!out.contains("<img src=\"http"));
        }
    }
}
