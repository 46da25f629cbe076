# reasonbench — `make demo` runs the main comparison offline on the built-in
# simulated model; `make test` is what CI runs.

GO      ?= go
BIN     := bin/bench
DEMO_DB := results/demo.db
HARD    := 900:1000

.PHONY: build demo test fmt-check vet fuzz bench-go clean

build:
	$(GO) build -o $(BIN) ./cmd/bench

# IO and CoT with k=10 samples per puzzle on the ToT paper's hard set
# (puzzles 900-999), on the simulated model, then the comparison table.
demo: build
	rm -f $(DEMO_DB) $(DEMO_DB)-wal $(DEMO_DB)-shm
	$(BIN) run --db $(DEMO_DB) --task game24 --strategy io  --range $(HARD) --set k=10
	$(BIN) run --db $(DEMO_DB) --task game24 --strategy cot --range $(HARD) --set k=10
	@echo
	@echo "Comparison (simulated model; stored in $(DEMO_DB)):"
	$(BIN) report --db $(DEMO_DB)

fmt-check:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

test: fmt-check vet
	CGO_ENABLED=1 $(GO) test -race -count=1 ./...

# Short fuzzing of the parsers that read model output.
fuzz:
	$(GO) test -run='^$$' -fuzz=FuzzParseExpr -fuzztime=30s ./tasks/game24/
	$(GO) test -run='^$$' -fuzz=FuzzCheck -fuzztime=30s ./tasks/game24/
	$(GO) test -run='^$$' -fuzz=FuzzParseStep -fuzztime=30s ./tasks/game24/

# Go benchmarks: harness overhead, parsers, search.
bench-go:
	$(GO) test -run='^$$' -bench=. -benchmem ./...

clean:
	rm -rf bin
