import os


class Game24:
    def __init__(self):
        self.data = ["1 1 1 1"]  # replaced by the wrapper
        with open(os.path.join(os.environ["BENCH_PROMPTS"], "game24", "cot.txt"), encoding="utf-8") as f:
            self.template = f.read()

    def get_input(self, idx):
        return self.data[idx]

    def prompt(self, x):
        return self.template.replace("{{.Input}}", x)


def get_task(name):
    if name == "game24":
        return Game24()
    raise NotImplementedError(name)
