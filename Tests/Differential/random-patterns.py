#!/usr/bin/env python3
"""Random small patterns under random rules and grids, for comparing Tessera with bgolly.

    Tests/Differential/random-patterns.py --seed 11 --count 80 OUT
    tessera bench corpus OUT --generations 137 --out results/      # add --workers 2 for workers

Each file is a soup of 5 to 24 cells a side under one of Golly's families (isotropic
non-totalistic, a fifth with B0; Life-like; hexagonal; von Neumann; Generations; Larger
than Life) on one of Golly's grids (--grids: the unbounded plane, a torus, a plane,
tubes, strips, Klein bottles, a cross-surface, a sphere, shifted tori). The corpus bench
runs each through Tessera and the bgolly engine that reads its rule and reports any
file whose cells differ; refusals are listed with their one line. The same seed writes
the same files.
"""
import argparse
import os
import random

LETTERS = {1: "ce", 2: "cekain", 3: "cekainyqjr", 4: "cekainyqjrtwz", 5: "cekainyqjr", 6: "cekain", 7: "ce"}
GRIDS = {
    "unbounded": [""],
    "bounded": [":T64,64", ":P48,40", ":T96,80", ":P70,50"],
    "other": [":T50,0", ":T0,44", ":P30,0", ":P0,30", ":K40*,40", ":K40,30*+1", ":T40+3,36", ":T40,30-7", ":C40,30", ":S36"],
}


def isotropic(rng):
    """Counts, each whole or with some of Hensel's letters (or all but some)."""
    text = ""
    for n in range(9):
        if rng.random() < 0.55:
            continue
        if n in LETTERS and rng.random() < 0.6:
            letters = LETTERS[n]
            pick = "".join(l for l in letters if rng.random() < 0.5) or letters[0]
            if rng.random() < 0.3 and len(pick) < len(letters):
                text += f"{n}-" + "".join(l for l in letters if l not in pick)
            else:
                text += f"{n}{pick}"
        else:
            text += str(n)
    return text


def counts(rng, low, high, chance):
    return "".join(str(n) for n in range(low, high + 1) if rng.random() < chance)


def rule(rng):
    """A rule of a random family, and its number of states."""
    kind = rng.choice(["isotropic", "isotropic", "lifelike", "generations", "ltl", "hex", "vonneumann"])
    if kind == "isotropic":
        birth = isotropic(rng)
        return f"B{birth if rng.random() < 0.2 else birth.replace('0', '')}/S{isotropic(rng)}", 2
    if kind == "lifelike":
        return f"B{counts(rng, 1, 8, 0.3)}/S{counts(rng, 0, 8, 0.4)}", 2
    if kind == "hex":
        return f"B{counts(rng, 1, 6, 0.35)}/S{counts(rng, 0, 6, 0.4)}H", 2
    if kind == "vonneumann":
        return f"B{counts(rng, 1, 4, 0.4)}/S{counts(rng, 0, 4, 0.4)}V", 2
    if kind == "generations":
        states = rng.randint(3, 8)
        return f"{counts(rng, 0, 8, 0.4)}/{counts(rng, 1, 8, 0.3) or '2'}/{states}", states
    reach = rng.randint(1, 4)
    most = (2 * reach + 1) ** 2
    survive = rng.randint(1, most // 3)
    birth = rng.randint(1, most // 3)
    history = rng.choice([0, 0, 3])
    text = (f"R{reach},C{history},M{rng.randint(0, 1)},S{survive}..{rng.randint(survive, most // 2)},"
            f"B{birth}..{rng.randint(birth, most // 2)},{rng.choice(['NM', 'NN'])}")
    return text, max(2, history)


def soup(rng, width, height, states, density):
    dead, rows = ("b" if states == 2 else "."), []
    for _ in range(height):
        cells = [(("o" if states == 2 else chr(64 + rng.randint(1, states - 1))) if rng.random() < density else dead)
                 for _ in range(width)]
        rows.append("".join(cells))
    return "$".join(rows) + "!"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", help="folder for the files (made if missing)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--count", type=int, default=60)
    parser.add_argument("--grids", default="unbounded,bounded,other",
                        help="comma-separated: unbounded, bounded (torus and plane), other")
    arguments = parser.parse_args()
    rng = random.Random(arguments.seed)
    grids = [grid for name in arguments.grids.split(",") for grid in GRIDS[name]]
    os.makedirs(arguments.out, exist_ok=True)
    for index in range(arguments.count):
        text, states = rule(rng)
        width, height = rng.randint(5, 24), rng.randint(5, 24)
        body = soup(rng, width, height, states, rng.choice([0.2, 0.35, 0.5]))
        with open(os.path.join(arguments.out, f"r{index:03d}.rle"), "w") as file:
            file.write(f"x = {width}, y = {height}, rule = {text}{rng.choice(grids)}\n{body}\n")


if __name__ == "__main__":
    main()
