#!/usr/bin/env python3
# Writes a tiny Llama with random F16 weights: DIR/model.gguf (for llama.cpp, through python3-gguf)
# and DIR/config.json (the same shape in Hugging Face's terms, for `meshplan plan --model DIR`).
# Its vocabulary is SentencePiece-style with a token for every ASCII byte, so llama-server
# tokenizes any ASCII text. Usage: tiny_llama.py DIR [LAYERS] [HIDDEN]
import json
import os
import sys

import numpy as np
import gguf

out = sys.argv[1]
layers = int(sys.argv[2]) if len(sys.argv) > 2 else 16
hidden = int(sys.argv[3]) if len(sys.argv) > 3 else 128
heads, kv_heads = 4, 2
head_dim = hidden // heads
ffn = 2 * hidden
context = 8192
rng = np.random.default_rng(7)

# <unk>, <s>, </s>, then the ASCII bytes as <0xNN> (type BYTE) and a few whole words: whatever
# random weights pick decodes to valid UTF-8, so a server streams every token as text.
tokens = ["<unk>", "<s>", "</s>"] + ["<0x%02X>" % b for b in range(128)]
words = ["\u2581", "\u2581the", "\u2581a", "\u2581of", "\u2581and", "\u2581to", "\u2581is", "\u2581in"]
tokens += words
scores = [0.0] * 3 + [-1000.0] * 128 + [-float(i) for i in range(len(words))]
types = [2, 3, 3] + [6] * 128 + [1] * len(words)  # UNKNOWN, CONTROL, BYTE, NORMAL
vocab = len(tokens)

os.makedirs(out, exist_ok=True)
w = gguf.GGUFWriter(os.path.join(out, "model.gguf"), "llama")
w.add_name("tiny-llama")
w.add_context_length(context)
w.add_embedding_length(hidden)
w.add_block_count(layers)
w.add_feed_forward_length(ffn)
w.add_head_count(heads)
w.add_head_count_kv(kv_heads)
w.add_layer_norm_rms_eps(1e-5)
w.add_rope_dimension_count(head_dim)
w.add_vocab_size(vocab)
w.add_file_type(gguf.LlamaFileType.MOSTLY_F16)
w.add_tokenizer_model("llama")
w.add_token_list(tokens)
w.add_token_scores(scores)
w.add_token_types(types)
w.add_unk_token_id(0)
w.add_bos_token_id(1)
w.add_eos_token_id(2)
w.add_add_bos_token(True)


def matrix(rows, cols):
    return (rng.standard_normal((rows, cols)) * 0.02).astype(np.float16)


def ones(n):
    return np.ones(n, dtype=np.float32)


# numpy's shape is ggml's ne reversed: token_embd is ne {hidden, vocab}.
w.add_tensor("token_embd.weight", matrix(vocab, hidden))
for i in range(layers):
    p = "blk.%d." % i
    w.add_tensor(p + "attn_norm.weight", ones(hidden))
    w.add_tensor(p + "attn_q.weight", matrix(hidden, hidden))
    w.add_tensor(p + "attn_k.weight", matrix(kv_heads * head_dim, hidden))
    w.add_tensor(p + "attn_v.weight", matrix(kv_heads * head_dim, hidden))
    w.add_tensor(p + "attn_output.weight", matrix(hidden, hidden))
    w.add_tensor(p + "ffn_norm.weight", ones(hidden))
    w.add_tensor(p + "ffn_gate.weight", matrix(ffn, hidden))
    w.add_tensor(p + "ffn_up.weight", matrix(ffn, hidden))
    w.add_tensor(p + "ffn_down.weight", matrix(hidden, ffn))
w.add_tensor("output_norm.weight", ones(hidden))
w.add_tensor("output.weight", matrix(vocab, hidden))
w.write_header_to_file()
w.write_kv_data_to_file()
w.write_tensors_to_file()
w.close()

config = {
    "architectures": ["LlamaForCausalLM"],
    "model_type": "llama",
    "hidden_size": hidden,
    "intermediate_size": ffn,
    "num_hidden_layers": layers,
    "num_attention_heads": heads,
    "num_key_value_heads": kv_heads,
    "head_dim": head_dim,
    "vocab_size": vocab,
    "max_position_embeddings": context,
    "rms_norm_eps": 1e-5,
    "tie_word_embeddings": False,
    "torch_dtype": "float16",
}
with open(os.path.join(out, "config.json"), "w") as f:
    json.dump(config, f, indent=2)
    f.write("\n")
