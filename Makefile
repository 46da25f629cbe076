# reasonbench — `make demo` runs the main comparison offline on the built-in
# simulated model; `make test` is what CI runs.

GO      ?= go
BIN     := bin/bench
DEMO_DB := results/demo.db
HARD    := 900:1000

.PHONY: build demo test fmt-check vet fuzz bench-go bench-store clean figures screenshots

build:
	$(GO) build -buildvcs=auto -o $(BIN) ./cmd/bench

# The main job, offline on the simulated model: the ToT paper's Game of 24
# comparison on its hard set (puzzles 900-999; IO and CoT with k=10 samples,
# CoT-SC over 10 chains, ToT with beam 1 and 5), then IO, CoT with gold
# context, CoT-SC and ReAct (text and native tool calls) on the 100 bundled
# HotpotQA questions, then the self-consistency paper's GSM8K setting (CoT
# greedy against CoT-SC over 40 paths) on the 1,319 test problems; each
# followed by its comparison table.
demo: build
	rm -f $(DEMO_DB) $(DEMO_DB)-wal $(DEMO_DB)-shm
	$(BIN) run --db $(DEMO_DB) --task game24 --strategy io    --range $(HARD) --set k=10 >/dev/null
	$(BIN) run --db $(DEMO_DB) --task game24 --strategy cot   --range $(HARD) --set k=10 >/dev/null
	$(BIN) run --db $(DEMO_DB) --task game24 --strategy cotsc --range $(HARD) --set k=10 >/dev/null
	$(BIN) run --db $(DEMO_DB) --task game24 --strategy tot   --range $(HARD) --set b=1 >/dev/null
	$(BIN) run --db $(DEMO_DB) --task game24 --strategy tot   --range $(HARD) --set b=5 >/dev/null
	@echo
	@echo "Game of 24, puzzles 900-999 (simulated model; stored in $(DEMO_DB)):"
	@$(BIN) report --db $(DEMO_DB) --last 5
	$(BIN) run --db $(DEMO_DB) --task hotpotqa --strategy io >/dev/null
	$(BIN) run --db $(DEMO_DB) --task hotpotqa --strategy cot   --set context=gold >/dev/null
	$(BIN) run --db $(DEMO_DB) --task hotpotqa --strategy cotsc --set k=10 >/dev/null
	$(BIN) run --db $(DEMO_DB) --task hotpotqa --strategy react --set protocol=text >/dev/null
	$(BIN) run --db $(DEMO_DB) --task hotpotqa --strategy react --set protocol=tools >/dev/null
	@echo
	@echo "HotpotQA, 100 questions (simulated model; accuracy = EM):"
	@$(BIN) report --db $(DEMO_DB) --last 5
	$(BIN) run --db $(DEMO_DB) --preset sc-gsm8k/cot >/dev/null
	$(BIN) run --db $(DEMO_DB) --preset sc-gsm8k/cotsc-40 >/dev/null
	@echo
	@echo "GSM8K, 1,319 test problems, CoT (greedy) vs CoT-SC (40 paths, T=0.7) (simulated model; the paper's figures for its models are in docs/papers.md):"
	@$(BIN) report --db $(DEMO_DB) --last 2

fmt-check:
	@out=$$(gofmt -l .); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

# The suite under the race detector. -timeout: each package's test binary
# gets 20 minutes, not go test's default 10, so a busy machine slows the
# slowest packages (bench, cmd/bench) rather than failing them; set
# TESTFLAGS to change any of these flags.
# -trimpath: compiled packages do not depend on the checkout's path, so a
# fresh clone elsewhere reuses the build cache (without it, a fresh clone
# with a warm cache recompiled every package of this module under -race:
# 3 min 41 s against 3 min 22 s).
# -ldflags=-w: the ~46 race test binaries are linked afresh on every run
# and DWARF is a third of a link's CPU (view: 4.7 s user, 3.3 s with -w);
# race reports and panics still name file and line (from the pclntab).
# scripts/testprogress prints each package as it finishes, with its slowest
# test, and a failing package's whole output.
# -gcflags=modernc.org/...=-d=checkptr=0 -race=false: modernc's SQLite
# and libc (C translated to Go, all pointer arithmetic, hundreds of
# thousands of lines) are built without checkptr and without the race
# detector's instrumentation. checkptr's checks there were a quarter of
# the suite's CPU, and instrumenting every memory access of the SQLite
# engine another fifth of bench's. SQLite is not this project's code: its
# connections are used through database/sql, whose locking, like every
# package of this module, is still built with -race and checkptr (plain
# `go test -race ./...` instruments SQLite too).
# -p 3: three test binaries at once on two cores. bench and cmd/bench take
# most of the time; at -p 2 they held both places while the 45 smaller
# packages waited, and neither keeps a core busy on its own. At -p 4 the
# suite took 6% more CPU (427 s against 401: four race binaries of two
# threads each contending for two cores) and 11 s longer.
# The same for the other libraries that only crunch bytes the project hands
# them: zstd (the store's blobs), tiktoken and its regexp engine (token
# estimates of every prompt), gjson/sjson, yaml. Together they were 30% of
# a logged-run replay's CPU under the race detector (ToT's Game of 24:
# 9.7 s against 7.0 s; tau-bench's airline: 13.0 against 9.2). openai-go
# is not among them: uninstrumented, its decoder caches shared with
# encoding/json lose their happens-before edges and the detector reports
# races that are not there.
UNRACED = modernc.org/... github.com/klauspost/compress/... github.com/tiktoken-go/... \
	github.com/dlclark/regexp2/... github.com/tidwall/... go.yaml.in/...
TESTFLAGS ?= -race -trimpath -count=1 -timeout 20m -ldflags=-w $(foreach p,$(UNRACED),'-gcflags=$(p)=-d=checkptr=0 -race=false') -p 3
# atexit_sleep_ms=0: a race binary sleeps a second before it exits, so
# that other goroutines can still report; a test that races fails as the
# race happens, and the second was 48 s of slot time across the packages.
GORACE ?= atexit_sleep_ms=0
# The longest packages first (go test starts them in the order given, each
# once): started last, a 10-second package ran alone at the end.
TESTPKGS ?= ./bench ./cmd/bench ./strategies ./tasks/code ./simulator/hotpotqa ./results ./python ./sandbox \
	./tasks/game24 ./docs ./tools ./tasks/mathans ./simulator/game24 ./simulator/code ./simulator/qa ./store ./view ./...
# BENCH_BINARY: the tests that run bench as a program (the README's tour,
# the Python example, cmd/bench's killed runs, servers and shards) run this
# build of it rather than each linking their own.
test: fmt-check vet build
	CGO_ENABLED=1 GO=$(GO) GORACE="$(GORACE)" BENCH_BINARY=$(abspath $(BIN)) $(GO) run ./scripts/testprogress $(TESTFLAGS) $(TESTPKGS)

# Short fuzzing of the parsers that read model output.
fuzz:
	$(GO) test -run='^$$' -fuzz=FuzzParseExpr -fuzztime=30s ./tasks/game24/
	$(GO) test -run='^$$' -fuzz=FuzzCheck -fuzztime=30s ./tasks/game24/
	$(GO) test -run='^$$' -fuzz=FuzzParseStep -fuzztime=30s ./tasks/game24/
	$(GO) test -run='^$$' -fuzz=FuzzCheckPaper -fuzztime=30s ./tasks/game24/
	$(GO) test -run='^$$' -fuzz=FuzzReferenceValue -fuzztime=30s ./tasks/game24/
	$(GO) test -run='^$$' -fuzz=FuzzExtractAnswer -fuzztime=30s ./tasks/hotpotqa/
	$(GO) test -run='^$$' -fuzz=FuzzPyFormat -fuzztime=30s ./prompts/
	$(GO) test -run='^$$' -fuzz=FuzzPyStrings -fuzztime=30s ./prompts/
	$(GO) test -run='^$$' -fuzz=FuzzNormalize -fuzztime=30s ./tasks/squad/
	$(GO) test -run='^$$' -fuzz=FuzzParseVote -fuzztime=30s ./tasks/hotpotqa/
	$(GO) test -run='^$$' -fuzz=FuzzParseText -fuzztime=30s ./strategies/action/
	$(GO) test -run='^$$' -fuzz=FuzzSplitThinking -fuzztime=30s ./llm/
	$(GO) test -run='^$$' -fuzz=FuzzRejectedParam -fuzztime=30s ./llm/
	$(GO) test -run='^$$' -fuzz=FuzzParseLATSScore -fuzztime=30s ./strategies/
	$(GO) test -run='^$$' -fuzz=FuzzParseJSON -fuzztime=30s ./strategies/action/
	$(GO) test -run='^$$' -fuzz=FuzzParseXML -fuzztime=30s ./strategies/action/
	$(GO) test -run='^$$' -fuzz=FuzzParseEpisode -fuzztime=30s ./strategies/action/
	$(GO) test -run='^$$' -fuzz=FuzzTextLineSplit -fuzztime=30s ./llm/tokens/
	$(GO) test -run='^$$' -fuzz=FuzzNumbers -fuzztime=30s ./tasks/qa/
	$(GO) test -run='^$$' -fuzz=FuzzScorers -fuzztime=30s ./tasks/qa/
	$(GO) test -run='^$$' -fuzz=FuzzParseData -fuzztime=30s ./tasks/qa/
	$(GO) test -run='^$$' -fuzz=FuzzSimRespond -fuzztime=30s ./simulator/qa/
	$(GO) test -run='^$$' -fuzz=FuzzDecodeCalls -fuzztime=30s ./store/
	$(GO) test -run='^$$' -fuzz=FuzzDecodeNodes -fuzztime=30s ./store/
	$(GO) test -run='^$$' -fuzz=FuzzReading -fuzztime=30s ./simulator/reading/
	$(GO) test -run='^$$' -fuzz=FuzzSimRespond -fuzztime=30s ./simulator/hotpotqa/
	$(GO) test -run='^$$' -fuzz=FuzzLocalDocstore -fuzztime=30s ./tasks/hotpotqa/
	$(GO) test -run='^$$' -fuzz=FuzzScore -fuzztime=30s ./tasks/crosswords/
	$(GO) test -run='^$$' -fuzz=FuzzParsers -fuzztime=30s ./tasks/crosswords/
	$(GO) test -run='^$$' -fuzz=FuzzScore -fuzztime=30s ./tasks/creative/
	$(GO) test -run='^$$' -fuzz=FuzzRespond -fuzztime=30s ./simulator/crosswords/
	$(GO) test -run='^$$' -fuzz=FuzzRespond -fuzztime=30s ./simulator/creative/

# Go benchmarks: harness overhead, parsers, search.
bench-go:
	$(GO) test -run='^$$' -bench=. -benchmem ./...

# The store at research scale: a 1,000-puzzle ToT run and its cached rerun on
# bin/bench (bytes per call, rerun time and growth, peak RSS, report time).
bench-store: build
	scripts/bench-store.sh $(BIN)

clean:
	rm -rf bin

# The tables and figures under docs/ (linked from docs/README.md), regenerated from the example experiments on
# the simulated model.
FIG_DB := results/figures.db
figures: build
	rm -f $(FIG_DB) $(FIG_DB)-wal $(FIG_DB)-shm
	$(BIN) run --db $(FIG_DB) -f experiments/tot-game24.yaml >/dev/null
	$(BIN) report --db $(FIG_DB) --experiment tot-game24 --format md > docs/tot-game24.md
	$(BIN) plot --db $(FIG_DB) --experiment tot-game24 --x tokens --y accuracy --logx --out docs/tot-game24.svg
	$(BIN) plot --db $(FIG_DB) --experiment tot-game24 --frontier --x tokens --logx --out docs/tot-game24-frontier.png > docs/tot-game24-frontier.txt
	$(BIN) compare --db $(FIG_DB) $$($(BIN) report --db $(FIG_DB) --experiment tot-game24 --group=false --format csv | awk -F, 'NR>1 && $$3=="cotsc" {print $$1}') $$($(BIN) report --db $(FIG_DB) --experiment tot-game24 --group=false --format csv | awk -F, 'NR>1 && $$3!="cotsc" {print $$1}') > docs/tot-game24-compare.md
	$(BIN) run --db $(FIG_DB) -f experiments/reflexion-hotpotqa.yaml >/dev/null
	$(BIN) report --db $(FIG_DB) --experiment reflexion-hotpotqa --by trial --format md > docs/reflexion-hotpotqa.md
	$(BIN) plot --db $(FIG_DB) --experiment reflexion-hotpotqa --kind trials --out docs/reflexion-hotpotqa.svg
	$(BIN) run --db $(FIG_DB) -f experiments/hotpotqa-compare.yaml >/dev/null
	$(BIN) report --db $(FIG_DB) --experiment hotpotqa-compare --format md > docs/hotpotqa-compare.md
	$(BIN) plot --db $(FIG_DB) --experiment hotpotqa-compare --x tokens --y accuracy --logx --out docs/hotpotqa-compare.svg
	$(BIN) run --db $(FIG_DB) -f experiments/tot-crosswords.yaml >/dev/null
	$(BIN) report --db $(FIG_DB) --experiment tot-crosswords --format md > docs/tot-crosswords.md
	$(BIN) run --db $(FIG_DB) -f experiments/tot-creative.yaml >/dev/null
	$(BIN) report --db $(FIG_DB) --experiment tot-creative --format md > docs/tot-creative.md
	$(BIN) run --db $(FIG_DB) -f experiments/tts-game24.yaml >/dev/null
	$(BIN) run --db $(FIG_DB) --task game24 --range 900:1000 --strategy cotsc --set k=16 --seed 2 --experiment tts-game24-levels >/dev/null
	lv=$$($(BIN) report --db $(FIG_DB) --experiment tts-game24-levels --group=false --format csv | awk -F, 'NR==2 {print $$1}'); \
	$(BIN) report --db $(FIG_DB) --experiment tts-game24 --by budget,difficulty --difficulty-from $$lv --format md > docs/tts-game24-budget.md && \
	$(BIN) plot --db $(FIG_DB) --experiment tts-game24 --frontier --by difficulty --difficulty-from $$lv --out docs/tts-game24-frontier.svg > docs/tts-game24-frontier.txt

# The bench view screenshots in docs/ (docs/README.md links them) (a ToT tree, a comparison), taken by the
# browser test in headless Chromium (scripts/install-chromium.sh).
screenshots:
	BENCH_VIEW_DOCS=$(CURDIR)/docs $(GO) test -count=1 -run '^TestBrowser$$' ./view/
	@ls -l docs/view-tot.png docs/view-compare.png
