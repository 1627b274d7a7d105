# The two commands of the README. Each installs what is missing first.
.PHONY: run test dev

run:
	@bash scripts/run.sh

test:
	@bash scripts/test.sh

# Development: rebuilds and reloads on change.
dev:
	@bash scripts/dev.sh
