# A STAND-IN for composable-models/llm_multiagent_debate's gsm/gen_gsm.py,
# written for reasonbench's tests: a re-implementation of how that script
# builds and sends its debate messages, in our own words, with none of its
# code or prompt text. It keeps the script's shape where the prompt importer
# (bench prompts import --from debate) and the protocol depend on it: five
# prose string literals in the same roles and order (the lone agent's
# check, unformatted; the debate prompt's opening; one other agent's answer,
# formatted with it; the closing, formatted with the question; the first
# question, formatted with the question), and the same loop: agents answer
# in order, round r > 0 shows agent i the others' message 2r-1, n=1, no
# temperature. Comments only: a docstring would be a sixth prose literal.
#
# Usage: python3 gen_gsm.py TEST_JSONL QUESTIONS OUT_JSON
# with the openai 0.x package (or python/reasonbench_openai_shim) on the path
# and OPENAI_API_BASE naming the endpoint.
import json
import random
import sys

import openai


def construct_message(agents, question, idx):
    if len(agents) == 0:
        return {"role": "user", "content": "Please look at your answer again and state it once more: one number, written as \\boxed{{answer}}."}

    prefix_string = "Here is what the other agents answered: "

    for agent in agents:
        agent_response = agent[idx]["content"]
        response = "\n\n Another agent wrote: ```{}```".format(agent_response)

        prefix_string = prefix_string + response

    prefix_string = prefix_string + """\n\n With their answers in mind, what is your answer now? \n The problem again: {}. Finish with one number, written as \\boxed{{answer}}, at the very end.""".format(question)
    return {"role": "user", "content": prefix_string}


def construct_assistant_message(completion):
    content = completion["choices"][0]["message"]["content"]
    return {"role": "assistant", "content": content}


def read_jsonl(path):
    with open(path) as fh:
        return [json.loads(line) for line in fh.readlines() if line]


if __name__ == "__main__":
    agents = 3
    rounds = 2
    random.seed(0)

    generated_description = {}

    questions = read_jsonl(sys.argv[1])
    random.shuffle(questions)

    for data in questions[:int(sys.argv[2])]:
        question = data["question"]
        answer = data["answer"]

        agent_contexts = [[{"role": "user", "content": """Work out this math problem: {} Show your steps; finish with one number, written as \\boxed{{answer}}, at the very end. """.format(question)}] for agent in range(agents)]

        for round in range(rounds):
            for i, agent_context in enumerate(agent_contexts):

                if round != 0:
                    agent_contexts_other = agent_contexts[:i] + agent_contexts[i+1:]
                    message = construct_message(agent_contexts_other, question, 2*round - 1)
                    agent_context.append(message)

                completion = openai.ChatCompletion.create(model="stand-in", messages=agent_context, n=1)

                assistant_message = construct_assistant_message(completion)
                agent_context.append(assistant_message)

        generated_description[question] = (agent_contexts, answer)

    json.dump(generated_description, open(sys.argv[3], "w"))
