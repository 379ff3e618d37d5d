"""Package the char-transformer of examples/char_transformer.py for
ember::deploy, with requests to serve and the outputs Python gives for them.

    python examples/deploy/export_char_model.py OUT_DIR [--weights model.ember] [--requests 32]

writes OUT_DIR/char_transformer.ember_package (the model's code and weights:
ember.deploy.save_package) and OUT_DIR/requests.ember: "tokens", one
1x64 prompt per request cut from examples/data/embers.txt, and "logits",
what this (single) Python interpreter computes for each. examples/deploy/
serve.cpp serves the package from several interpreters and checks its
outputs against these. Without --weights the model is freshly initialized
(seed 0); --weights takes what `char_transformer.py --save` wrote.
"""
import argparse
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

import ember  # noqa: E402
from char_transformer import CharCodec, CharTransformer  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out_dir")
    parser.add_argument("--weights", help="a state dict saved by char_transformer.py --save")
    parser.add_argument("--requests", type=int, default=32)
    parser.add_argument("--text", default=os.path.join(os.path.dirname(HERE), "data", "embers.txt"))
    args = parser.parse_args(argv)

    text = open(args.text, encoding="utf-8").read()
    codec = CharCodec(text)
    context = 64
    ember.manual_seed(0)
    kwargs = dict(vocab_size=len(codec.chars), context=context)
    model = CharTransformer(**kwargs)
    if args.weights:
        model.load_state_dict(ember.load(args.weights))
    model.eval()

    os.makedirs(args.out_dir, exist_ok=True)
    package = os.path.join(args.out_dir, "char_transformer.ember_package")
    ember.deploy.save_package(package, model, modules=["char_transformer", "progress"], kwargs=kwargs)

    data = codec.encode(text)
    starts = ember.randint(0, len(data) - context, (args.requests,))
    tokens = ember.stack([data[s : s + context] for s in starts.tolist()]).unsqueeze(1)  # (requests, 1, context)
    with ember.no_grad():
        logits = ember.stack([model(t) for t in tokens])
    ember.save({"tokens": tokens, "logits": logits}, os.path.join(args.out_dir, "requests.ember"))
    print(f"wrote {package} and {args.requests} requests with their logits")


if __name__ == "__main__":
    main()
