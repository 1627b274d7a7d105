# The two commands of the README. Each installs what is missing first.
.PHONY: run test bench dev

run:
	@bash scripts/run.sh

test:
	@bash scripts/test.sh

# Every performance figure against its target, on the release build (README, "Performance").
bench:
	@bash scripts/bench.sh

# Development: rebuilds and reloads on change.
dev:
	@bash scripts/dev.sh
