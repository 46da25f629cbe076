# Runs the reference's own Python (sierra-research/tau-bench) to write the
# expected values the Go tests compare against. Nothing of the reference is
# copied here: this script imports it from checkouts given on the command
# line.
#
# Usage (python3 3.11 with pydantic 2; litellm is not needed, a stand-in
# module is installed before the reference is imported):
#
#   python3 gen_reference.py HEAD_CHECKOUT AT_7362A17_CHECKOUT [--skip-gt]
#
# Each checkout is a tree holding tau_bench/ at that commit with its data
# files in place as in the repository (tau_bench/envs/*/data/*.json,
# tau_bench/envs/*/wiki.md): HEAD 59a200c6d575d595120f1cb70fea53cef0632f6b
# and 7362a1708d720a4d697d042f21fd8637ea144c3b. It writes, next to itself:
#
#   gt_hashes.json       every task's ground-truth data hash (its gold
#                        actions replayed through Env.step on a fresh
#                        database, terminate tool skipped, then
#                        get_data_hash()), per version, domain and split;
#   tool_cases.json.gz   tool calls, one sequence per case on a fresh
#                        database, each call's observation from Env.step
#                        and the records the sequence left changed
#                        (json.dumps of each, or null where the reference
#                        raised out of step); curated calls of every tool
#                        first, then seeded random mutations of realistic
#                        calls (garbage types, missing and extra
#                        arguments, nested damage).

import copy
import gzip
import hashlib
import importlib
import json
import math
import os
import random
import sys
import types

sys.setrecursionlimit(10000)
OUT = os.path.dirname(os.path.abspath(__file__))
sys.modules.setdefault("litellm", types.SimpleNamespace(completion=None))


class StandInUser:
    # The user simulator is not part of a tool call.
    def reset(self, instruction=None):
        return ""

    def step(self, content):
        return ""

    def get_total_cost(self):
        return 0.0


def load_reference(checkout):
    for name in list(sys.modules):
        if name == "tau_bench" or name.startswith("tau_bench."):
            del sys.modules[name]
    sys.path.insert(0, checkout)
    try:
        base = importlib.import_module("tau_bench.envs.base")
        base.load_user = lambda **kw: StandInUser()
        types_mod = importlib.import_module("tau_bench.types")
        airline = importlib.import_module("tau_bench.envs.airline.env")
        retail = importlib.import_module("tau_bench.envs.retail.env")
    finally:
        sys.path.remove(checkout)
    return {
        "Action": types_mod.Action,
        "airline": (airline.MockAirlineDomainEnv, ["test"]),
        "retail": (retail.MockRetailDomainEnv, ["test", "train", "dev"]),
    }


def gt_hashes(ref):
    out = {}
    for domain in ("airline", "retail"):
        env_cls, splits = ref[domain]
        for split in splits:
            env = env_cls(task_split=split, task_index=0)
            hashes = []
            for i in range(len(env.tasks)):
                env.reset(task_index=i)
                env.data = env.data_load_func()
                for action in env.task.actions:
                    if action.name not in env.terminate_tools:
                        env.step(action)
                hashes.append(env.get_data_hash())
            out[f"{domain}/{split}"] = hashes
    return out


def sha(s):
    return hashlib.sha256(s.encode("utf-8", "surrogatepass")).hexdigest()


def text_or_hash(s, limit=1500):
    # Long texts (search results) as their digest and length.
    if len(s) <= limit:
        return {"text": s}
    return {"sha256": sha(s), "len": len(s), "head": s[:120]}


def changed_records(fresh, data):
    out = {}
    for table in fresh:
        for k, v in data[table].items():
            if k not in fresh[table] or fresh[table][k] != v:
                out[f"{table}/{k}"] = text_or_hash(json.dumps(v))
    return out


def run_case(ref, domain, calls):
    env_cls, _ = ref[domain]
    env = run_case.envs.get(domain)
    if env is None:
        env = run_case.envs[domain] = env_cls(task_index=0)
        # Tool calls only: a terminate tool must not end the episode (its
        # reward would reload the data).
        env.terminate_tools = []
        run_case.fresh[domain] = env.data_load_func()
    env.data = env.data_load_func()
    results = []
    for name, args_text in calls:
        kwargs = json.loads(args_text)
        try:
            obs = env.step(ref["Action"](name=name, kwargs=kwargs)).observation
            results.append(text_or_hash(obs))
        except Exception as e:  # the reference's step itself fails
            results.append({"raised": type(e).__name__})
            break
    return {"calls": [{"name": n, "args": a} for n, a in calls], "results": results,
            "changed": changed_records(run_case.fresh[domain], env.data)}


run_case.envs = {}
run_case.fresh = {}

# ---- curated calls: every tool, valid and common errors ------------------

AIRLINE = [
    [("get_user_details", {"user_id": "mia_li_3668"})],
    [("get_user_details", {"user_id": "nobody"})],
    [("get_user_details", {})],
    [("get_user_details", {"user_id": "mia_li_3668", "extra": 1})],
    [("get_user_details", {"user_id": "mia_li_3668", "data": 1})],
    [("get_user_details", {"user_id": ["mia_li_3668"]})],
    [("get_user_details", {"user_id": 5})],
    [("get_reservation_details", {"reservation_id": "NO6JO3"})],
    [("get_reservation_details", {"reservation_id": "XXXXXX"})],
    [("list_all_airports", {})],
    [("list_all_airports", {"x": 1})],
    [("search_direct_flight", {"origin": "JFK", "destination": "SEA", "date": "2024-05-20"})],
    [("search_direct_flight", {"origin": "JFK", "destination": "SEA", "date": "2024-06-20"})],
    [("search_direct_flight", {"origin": "JFK", "destination": "SEA", "date": ["2024-05-20"]})],
    [("search_onestop_flight", {"origin": "JFK", "destination": "SEA", "date": "2024-05-20"})],
    [("search_onestop_flight", {"origin": "SFO", "destination": "JFK", "date": "2024-05-16"})],
    [("search_onestop_flight", {"origin": "JFK", "destination": "SEA", "date": "2024-05-30"})],
    [("search_onestop_flight", {"origin": "JFK", "destination": "SEA", "date": 20})],
    [("search_onestop_flight", {"origin": "JFK", "destination": "SEA", "date": {}})],
    [("calculate", {"expression": "(250 + 120) * 2 - 30.5"})],
    [("calculate", {"expression": "1/3"})],
    [("calculate", {"expression": "2.675 * 1"})],
    [("calculate", {"expression": "1/0"})],
    [("calculate", {"expression": "x + 1"})],
    [("calculate", {"expression": "(1 2)"})],
    [("calculate", {"expression": ["1", "+"]})],
    [("calculate", {"expression": 5})],
    [("calculate", {"expression": [1]})],
    [("think", {"thought": "hmm"})],
    [("think", {})],
    [("transfer_to_human_agents", {"summary": "help"})],
    [("send_certificate", {"user_id": "mia_li_3668", "amount": 150})],
    [("send_certificate", {"user_id": "mia_li_3668", "amount": 150.5}),
     ("send_certificate", {"user_id": "mia_li_3668", "amount": "x"}),
     ("send_certificate", {"user_id": "mia_li_3668", "amount": None}),
     ("send_certificate", {"user_id": "mia_li_3668", "amount": 1})],
    [("cancel_reservation", {"reservation_id": "NO6JO3"})],
    [("cancel_reservation", {"reservation_id": "NO6JO3"}), ("get_reservation_details", {"reservation_id": "NO6JO3"})],
    [("cancel_reservation", {"reservation_id": "nope"})],
    [("update_reservation_baggages", {"reservation_id": "NO6JO3", "total_baggages": 2, "nonfree_baggages": 1, "payment_id": "credit_card_4421486"})],
    [("update_reservation_passengers", {"reservation_id": "NO6JO3", "passengers": [{"first_name": "A", "last_name": "B", "dob": "1990-01-01"}]})],
    [("update_reservation_passengers", {"reservation_id": "NO6JO3", "passengers": []})],
    [("unknown_tool", {"a": 1})],
    # Prices: insurance and paid baggage in the total (the error shows it),
    # then the same booking paid exactly (a certificate used up).
    [("book_reservation", {"user_id": "mia_li_3668", "origin": "JFK", "destination": "SEA", "flight_type": "one_way",
                           "cabin": "economy", "flights": [{"flight_number": "HAT136", "date": "2024-05-20"},
                                                           {"flight_number": "HAT039", "date": "2024-05-20"}],
                           "passengers": [{"first_name": "Mia", "last_name": "Li", "dob": "1990-04-05"}],
                           "payment_methods": [{"payment_id": "certificate_7504069", "amount": 250},
                                               {"payment_id": "credit_card_4421486", "amount": 5}],
                           "total_baggages": 3, "nonfree_baggages": 2, "insurance": "yes"})],
    [("book_reservation", {"user_id": "mia_li_3668", "origin": "JFK", "destination": "SEA", "flight_type": "one_way",
                           "cabin": "economy", "flights": [{"flight_number": "HAT136", "date": "2024-05-20"},
                                                           {"flight_number": "HAT039", "date": "2024-05-20"}],
                           "passengers": [{"first_name": "Mia", "last_name": "Li", "dob": "1990-04-05"}],
                           "payment_methods": [{"payment_id": "certificate_7504069", "amount": 250},
                                               {"payment_id": "credit_card_4421486", "amount": 135}],
                           "total_baggages": 3, "nonfree_baggages": 2, "insurance": "yes"}),
     ("cancel_reservation", {"reservation_id": "HATHAT"}),
     ("get_user_details", {"user_id": "mia_li_3668"})],
    [("update_reservation_baggages", {"reservation_id": "NO6JO3", "total_baggages": 4, "nonfree_baggages": 3,
                                      "payment_id": "credit_card_4421486"}),
     ("update_reservation_baggages", {"reservation_id": "NO6JO3", "total_baggages": 1, "nonfree_baggages": 0,
                                      "payment_id": "credit_card_4421486"})],
    [("update_reservation_flights", {"reservation_id": "NO6JO3", "cabin": "business",
                                     "flights": [{"flight_number": "HAT136", "date": "2024-05-20"}],
                                     "payment_id": "credit_card_4421486"})],
    [("send_certificate", {"user_id": "mia_li_3668", "amount": 1})] * 4,
]

RETAIL = [
    [("find_user_id_by_email", {"email": "yusuf.rossi7301@example.com"})],
    [("find_user_id_by_email", {"email": "YUSUF.ROSSI7301@EXAMPLE.COM"})],
    [("find_user_id_by_email", {"email": 5})],
    [("find_user_id_by_name_zip", {"first_name": "Yusuf", "last_name": "Rossi", "zip": "19122"})],
    [("find_user_id_by_name_zip", {"first_name": "Yusuf", "last_name": 1, "zip": "19122"})],
    [("get_user_details", {"user_id": "yusuf_rossi_9620"})],
    [("get_order_details", {"order_id": "#W2378156"})],
    [("get_order_details", {"order_id": "W2378156"})],
    [("get_product_details", {"product_id": "1656367028"})],
    [("list_all_product_types", {})],
    [("modify_user_address", {"user_id": "yusuf_rossi_9620", "address1": "1 Main St", "address2": "", "city": "X", "state": "PA", "country": "USA", "zip": "19122"})],
    [("modify_user_address", {"user_id": "yusuf_rossi_9620", "address1": "1 Main St", "address2": "", "city": "X", "province": "PA", "country": "USA", "zip": "19122"})],
    [("modify_pending_order_address", {"order_id": "#W2378156", "address1": "1 Main St", "address2": "", "city": "X", "state": "PA", "country": "USA", "zip": "19122"})],
    [("calculate", {"expression": "100 - 12.5 * 2"})],
    [("think", {"thought": "x"})],
    [("transfer_to_human_agents", {"summary": "x"})],
    [("unknown_tool", {})],
]


def curated(ref, domain):
    cases = AIRLINE if domain == "airline" else RETAIL
    # Every gold action of the test split, one case each: realistic
    # arguments for every tool the tasks use.
    env_cls, _ = ref[domain]
    env = env_cls(task_index=0)
    gold = []
    for t in env.tasks:
        for a in t.actions:
            if a.name != "respond":
                gold.append([(a.name, a.kwargs)])
    return [[(n, json.dumps(k)) for n, k in c] for c in cases + gold]


# ---- random mutations ---------------------------------------------------

def garbage_pool(fresh, domain, rnd):
    pool = [None, True, False, 0, 1, -1, 2, 3, 50, 2 ** 70, -(2 ** 65), 1.5, 0.1, -0.0, 250.0, 1e300, math.nan,
            math.inf, "", "x", "yes", "no", "économie", "\ud800", "2024-05-20", "2024-05-1", "5", "+1",
            [], {}, [1, "a"], {"a": 1}, ["x"], [[1]], [None]]
    for table in fresh:
        keys = list(fresh[table])
        pool += rnd.sample(keys, min(4, len(keys)))
    return pool


def mutate(value, pool, rnd, depth=0):
    # Return a damaged copy of a JSON value.
    k = rnd.random()
    if isinstance(value, dict) and value and k < 0.6 and depth < 4:
        value = dict(value)
        key = rnd.choice(list(value))
        op = rnd.random()
        if op < 0.15:
            del value[key]
        elif op < 0.25:
            value[rnd.choice(["extra", "price", "amount", "date"])] = rnd.choice(pool)
        else:
            value[key] = mutate(value[key], pool, rnd, depth + 1)
        return value
    if isinstance(value, list) and value and k < 0.6 and depth < 4:
        value = list(value)
        i = rnd.randrange(len(value))
        op = rnd.random()
        if op < 0.15:
            del value[i]
        elif op < 0.3:
            value.append(copy.deepcopy(value[i]))
        else:
            value[i] = mutate(value[i], pool, rnd, depth + 1)
        return value
    op = rnd.random()
    if op < 0.15 and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if op < 0.25 and isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    if op < 0.3:
        return [value]
    return copy.deepcopy(rnd.choice(pool))


def mutate_kwargs(kw, pool, rnd):
    # Damage one argument (or drop one, or add one): kwargs stay a dict.
    kw = dict(kw)
    op = rnd.random()
    if not kw or op < 0.1:
        kw[rnd.choice(["extra", "x", "amount"])] = copy.deepcopy(rnd.choice(pool))
    elif op < 0.2:
        del kw[rnd.choice(list(kw))]
    else:
        key = rnd.choice(list(kw))
        kw[key] = mutate(kw[key], pool, rnd, 1)
    return kw


def random_cases(ref, domain, n, seed):
    rnd = random.Random(seed)
    env_cls, _ = ref[domain]
    env = env_cls(task_index=0)
    fresh = env.data_load_func()
    pool = garbage_pool(fresh, domain, rnd)
    templates = {}
    for split in ref[domain][1]:
        for t in env_cls(task_split=split, task_index=0).tasks:
            for a in t.actions:
                if a.name != "respond":
                    templates.setdefault(a.name, []).append(a.kwargs)
    for tool in env.tools_info:
        name = tool["function"]["name"]
        props = tool["function"]["parameters"]["properties"]
        templates.setdefault(name, [{p: "x" for p in props}])
    names = sorted(templates)
    cases = []
    for _ in range(n):
        seq = []
        for _ in range(rnd.choice([1, 1, 1, 2, 3])):
            name = rnd.choice(names)
            kw = copy.deepcopy(rnd.choice(templates[name]))
            for _ in range(rnd.choice([0, 1, 1, 2, 3])):
                kw = mutate_kwargs(kw, pool, rnd)
            if rnd.random() < 0.05:
                kw["data"] = 1
            seq.append((name, json.dumps(kw)))
        cases.append(seq)
    return cases


def main():
    head, at = sys.argv[1], sys.argv[2]
    skip_gt = "--skip-gt" in sys.argv[3:]  # keep gt_hashes.json as it is
    gt = {}
    tools = {}
    for version, checkout in (("head", head), ("7362a17", at)):
        ref = load_reference(checkout)
        run_case.envs.clear()
        run_case.fresh.clear()
        if not skip_gt:
            for key, hashes in gt_hashes(ref).items():
                gt[f"{version}/{key}"] = hashes
        for domain, n, seed in (("airline", 700, 1), ("retail", 700, 2)):
            cases = curated(ref, domain) + random_cases(ref, domain, n, seed)
            tools[f"{version}/{domain}"] = [run_case(ref, domain, c) for c in cases]
            print(version, domain, len(cases), file=sys.stderr)
    meta = {"python": sys.version.split()[0], "generator": "gen_reference.py"}
    if not skip_gt:
        with open(os.path.join(OUT, "gt_hashes.json"), "w") as f:
            json.dump({"meta": meta, "hashes": gt}, f, indent=0)
            f.write("\n")
    raw = json.dumps({"meta": meta, "cases": tools}).encode()
    with open(os.path.join(OUT, "tool_cases.json.gz"), "wb") as f:
        with gzip.GzipFile(fileobj=f, mode="wb", compresslevel=9, mtime=0) as z:
            z.write(raw)


if __name__ == "__main__":
    main()
