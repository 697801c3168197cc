"""Tiny randomly initialised models for the evaluator tests, built with ``transformers`` and saved to a folder.

Nothing is downloaded: configs are instantiated with a few hundred parameters per layer, a character-level
tokenizer is built with ``tokenizers``, and the PIL image processors are configured by hand. The models are
real ``transformers`` classes, so the code under test (``AutoProcessor`` / ``AutoModel*`` loading, generation,
embedding) runs exactly as it would on a released checkpoint.
"""

from __future__ import annotations

from pathlib import Path


def build_tiny_vlm(folder: Path) -> Path:
    """A 1-layer LLaVA (CLIP vision tower + Llama text model) with a char-level tokenizer and chat template."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import LlavaConfig, LlavaForConditionalGeneration, LlavaProcessor, PreTrainedTokenizerFast
    from transformers.models.clip.image_processing_pil_clip import CLIPImageProcessorPil

    special = ["<pad>", "<s>", "</s>", "<image>"]
    chars = [chr(i) for i in range(32, 127)] + ["\n"]
    vocab = {tok: i for i, tok in enumerate(special + chars)}
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<pad>"))
    tok.pre_tokenizer = pre_tokenizers.Split(pattern="", behavior="isolated")
    tok.decoder = decoders.Fuse()
    fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>", pad_token="<pad>",
                                   unk_token="<pad>", extra_special_tokens={"image_token": "<image>"})
    template = ("{% for m in messages %}{{ m['role'] }}: {% if m['content'] is string %}{{ m['content'] }}"
                "{% else %}{% for c in m['content'] %}{% if c['type'] == 'image' %}<image>"
                "{% elif c['type'] == 'text' %}{{ c['text'][:200] }}{% endif %}{% endfor %}{% endif %}\n"
                "{% endfor %}{% if add_generation_prompt %}assistant: {% endif %}")
    image_processor = CLIPImageProcessorPil(size={"shortest_edge": 28}, crop_size={"height": 28, "width": 28})
    processor = LlavaProcessor(image_processor=image_processor, tokenizer=fast, chat_template=template,
                               patch_size=14, vision_feature_select_strategy="default", num_additional_image_tokens=1)
    config = LlavaConfig(
        text_config={"model_type": "llama", "vocab_size": len(vocab), "hidden_size": 32, "intermediate_size": 64,
                     "num_hidden_layers": 1, "num_attention_heads": 2, "num_key_value_heads": 1,
                     "max_position_embeddings": 8192, "bos_token_id": 1, "eos_token_id": 2, "pad_token_id": 0},
        vision_config={"model_type": "clip_vision_model", "hidden_size": 32, "intermediate_size": 64,
                       "num_hidden_layers": 1, "num_attention_heads": 2, "image_size": 28, "patch_size": 14,
                       "projection_dim": 32},
        image_token_id=vocab["<image>"], vision_feature_select_strategy="default", vision_feature_layer=-1)
    torch.manual_seed(0)
    model = LlavaForConditionalGeneration(config).eval()
    folder.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(folder)
    processor.save_pretrained(folder)
    return folder


def build_tiny_dinov2(folder: Path) -> Path:
    """A 1-layer ``Dinov2Model`` with a BiT (DINOv2) image processor: shortest edge 32, centre crop 28."""
    import torch
    from transformers import Dinov2Config, Dinov2Model
    from transformers.models.bit.image_processing_pil_bit import BitImageProcessorPil

    torch.manual_seed(0)
    Dinov2Model(Dinov2Config(hidden_size=32, num_hidden_layers=1, num_attention_heads=2, intermediate_size=64,
                             image_size=28, patch_size=14)).eval().save_pretrained(folder)
    BitImageProcessorPil(size={"shortest_edge": 32}, crop_size={"height": 28, "width": 28},
                         do_center_crop=True).save_pretrained(folder)
    return folder


def build_tiny_siglip(folder: Path) -> Path:
    """A 1-layer ``SiglipVisionModel`` (attention-pooling head) with a 28x28 SigLIP image processor."""
    import torch
    from transformers import SiglipVisionConfig, SiglipVisionModel
    from transformers.models.siglip.image_processing_pil_siglip import SiglipImageProcessorPil

    torch.manual_seed(0)
    SiglipVisionModel(SiglipVisionConfig(hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                                         intermediate_size=64, image_size=28, patch_size=14)).eval() \
        .save_pretrained(folder)
    SiglipImageProcessorPil(size={"height": 28, "width": 28}).save_pretrained(folder)
    return folder
