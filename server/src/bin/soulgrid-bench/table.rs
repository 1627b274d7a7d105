//! The figures as one table: a row per figure, its target, what was measured, whether the
//! target is met, and the ratio to a reference measured in the same run.

/// Whether a figure meets its target.
#[derive(Clone, Debug, PartialEq)]
pub enum Verdict {
    Pass,
    Fail,
    /// Not measured in this run, and why.
    NotRun(String),
}

#[derive(Clone, Debug)]
pub struct Row {
    pub id: &'static str,
    pub figure: String,
    pub target: String,
    pub measured: String,
    pub verdict: Verdict,
    /// Against a reference measured in the same run (e.g. raw SQLite inserts).
    pub ratio: Option<String>,
}

impl Row {
    pub fn new(id: &'static str, figure: &str, target: &str) -> Self {
        Row {
            id,
            figure: figure.to_string(),
            target: target.to_string(),
            measured: String::new(),
            verdict: Verdict::NotRun("not measured".into()),
            ratio: None,
        }
    }

    /// What was measured, and whether it meets the target.
    pub fn measured(mut self, measured: String, pass: bool) -> Self {
        self.measured = measured;
        self.verdict = if pass { Verdict::Pass } else { Verdict::Fail };
        self
    }

    pub fn ratio(mut self, ratio: String) -> Self {
        self.ratio = Some(ratio);
        self
    }

    /// Latencies `took` (ms) against "p95 ≤ `p95_ms`": measured, or not run without samples.
    pub fn p95_within(self, took: Vec<f64>, p95_ms: f64) -> Self {
        match Spread::of(took) {
            Some(s) => {
                let pass = s.p95 <= p95_ms;
                self.measured(s.show(), pass)
            }
            None => self.not_run("nothing was measured"),
        }
    }

    pub fn not_run(mut self, why: &str) -> Self {
        self.verdict = Verdict::NotRun(why.to_string());
        self
    }
}

/// Latencies in milliseconds: p50, p95, p99 and how many.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Spread {
    pub n: usize,
    pub p50: f64,
    pub p95: f64,
    pub p99: f64,
}

impl Spread {
    pub fn of(mut samples: Vec<f64>) -> Option<Spread> {
        if samples.is_empty() {
            return None;
        }
        samples.sort_by(|a, b| a.total_cmp(b));
        let at = |p: f64| samples[((samples.len() - 1) as f64 * p).round() as usize];
        Some(Spread {
            n: samples.len(),
            p50: at(0.50),
            p95: at(0.95),
            p99: at(0.99),
        })
    }

    pub fn show(&self) -> String {
        format!(
            "p50 {} / p95 {} / p99 {} ms (n={})",
            ms(self.p50),
            ms(self.p95),
            ms(self.p99),
            self.n
        )
    }
}

/// Milliseconds as people read them: two decimals below 10, whole above.
pub fn ms(v: f64) -> String {
    if v < 10.0 {
        format!("{v:.2}")
    } else {
        thousands(v)
    }
}

/// A count with thousands separated: 50,000.
pub fn thousands(v: f64) -> String {
    let whole = format!("{:.0}", v.abs());
    let mut out = String::new();
    for (i, c) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if v < 0.0 {
        format!("-{out}")
    } else {
        out
    }
}

/// The table, in Markdown (so docs/PERFORMANCE.md can hold it as printed), rows in id order.
pub fn render(rows: &[Row]) -> String {
    let mut rows = rows.to_vec();
    rows.sort_by(|a, b| a.id.cmp(b.id));
    let mut out = String::from(
        "| # | figure | target | measured | verdict | against its reference |\n|---|---|---|---|---|---|\n",
    );
    for r in rows {
        let verdict = match &r.verdict {
            Verdict::Pass => "PASS".to_string(),
            Verdict::Fail => "FAIL".to_string(),
            Verdict::NotRun(why) => format!("not run: {why}"),
        };
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} |\n",
            r.id,
            r.figure,
            r.target,
            if r.measured.is_empty() {
                "–"
            } else {
                &r.measured
            },
            verdict,
            r.ratio.as_deref().unwrap_or("–")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spreads_and_numbers_read_as_people_write_them() {
        let s = Spread::of((1..=100).map(f64::from).collect()).unwrap();
        assert_eq!((s.p50, s.p95, s.p99, s.n), (51.0, 95.0, 99.0, 100));
        assert_eq!(thousands(50_000.4), "50,000");
        assert_eq!(thousands(999.0), "999");
        assert_eq!(ms(0.456), "0.46");
        assert!(Spread::of(vec![]).is_none());
    }

    #[test]
    fn the_table_has_a_row_per_figure_in_order() {
        let rows = vec![
            Row::new("P3", "appends", "≥ 1").measured("2".into(), true),
            Row::new("P1", "marker", "≤ 16 ms").not_run("no browser"),
        ];
        let t = render(&rows);
        let lines: Vec<&str> = t.lines().collect();
        assert!(lines[2].starts_with("| P1 |") && lines[2].contains("not run: no browser"));
        assert!(lines[3].starts_with("| P3 |") && lines[3].contains("| PASS |"));
    }
}
