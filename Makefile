# The commands of the README. Each installs what is missing first.
.PHONY: run test bench dev check

run:
	@bash scripts/run.sh

test:
	@bash scripts/test.sh

# Every performance figure against its target, on the release build (docs/PERFORMANCE.md).
bench:
	@bash scripts/bench.sh

# Development: rebuilds and reloads on change.
dev:
	@bash scripts/dev.sh

# Formatting and clippy (warnings are errors) for every crate and target; CI runs it first.
check:
	@bash scripts/check.sh
