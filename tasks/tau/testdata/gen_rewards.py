# Runs the reference's Env.calculate_reward (sierra-research/tau-bench, at
# both commits) on made-up episodes of every airline and retail test task
# and writes rewards.json.gz next to itself: per version, domain, task and
# scenario, the actions taken and the reference's reward_info
# (RewardResult.model_dump(), as json.dumps prints it).
#
# Usage: python3 gen_rewards.py HEAD_CHECKOUT AT_7362A17_CHECKOUT
# (checkouts prepared as gen_reference.py says).
#
# Scenarios: "gold" does the gold actions (terminate tool included) and
# says every required output in one message, with thousands separators
# ("1,000"), which the reward removes; "silent" does nothing and says
# hello; "outputs" says the outputs but does nothing; "half" does the
# gold actions but the last write and says the first output only.
import gzip
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_reference  # noqa: E402

WRITES = {"book_reservation", "cancel_reservation", "send_certificate", "update_reservation_baggages",
          "update_reservation_flights", "update_reservation_passengers", "cancel_pending_order",
          "exchange_delivered_order_items", "modify_pending_order_address", "modify_pending_order_items",
          "modify_pending_order_payment", "modify_user_address", "return_delivered_order_items"}


def with_commas(s):
    # 1000 -> 1,000 (the reward strips commas from what the agent says).
    return re.sub(r"\d{4,}", lambda m: f"{int(m.group()):,}", s)


def scenarios(task):
    gold = [(a.name, a.kwargs) for a in task.actions]
    said = "Done. " + ", ".join(with_commas(o) for o in task.outputs) + "." if task.outputs else "Done."
    last_write = max((i for i, (n, _) in enumerate(gold) if n in WRITES), default=None)
    half = [g for i, g in enumerate(gold) if i != last_write]
    first = "It is " + with_commas(task.outputs[0]) + "." if task.outputs else "Hm."
    return {
        "gold": gold + [("respond", {"content": said})],
        "silent": [("respond", {"content": "Hello! How can I help?"})],
        "outputs": [("respond", {"content": said})],
        "half": half + [("respond", {"content": first})],
    }


def main():
    out = {}
    for version, checkout in (("head", sys.argv[1]), ("7362a17", sys.argv[2])):
        ref = gen_reference.load_reference(checkout)
        for domain in ("airline", "retail"):
            env_cls, _ = ref[domain]
            env = env_cls(task_index=0)
            rows = []
            for i, task in enumerate(env.tasks):
                for name, actions in scenarios(task).items():
                    env.reset(task_index=i)
                    env.terminate_tools = []  # the episode runs to our end
                    for n, kw in actions:
                        env.step(ref["Action"](name=n, kwargs=json.loads(json.dumps(kw))))
                    env.terminate_tools = ["transfer_to_human_agents"]
                    r = env.calculate_reward()
                    rows.append({"task": i, "scenario": name,
                                 "actions": [{"name": n, "kwargs": kw} for n, kw in actions],
                                 "reward_info": json.dumps(r.model_dump())})
            out[f"{version}/{domain}"] = rows
            print(version, domain, len(rows), file=sys.stderr)
    raw = json.dumps({"meta": {"python": sys.version.split()[0], "generator": "gen_rewards.py"}, "rewards": out})
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "rewards.json.gz"), "wb") as f:
        with gzip.GzipFile(fileobj=f, mode="wb", compresslevel=9, mtime=0) as z:
            z.write(raw.encode())


if __name__ == "__main__":
    main()
