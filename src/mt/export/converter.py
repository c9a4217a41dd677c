"""Our Transformer as a CTranslate2 `TransformerSpec`, built the documented way: a `Converter`.

Imported only once `ctranslate2` is known to be installed (mt.export.writer checks). One small
function per part copies our tensors (safetensors names, mt.model.transformer) into the spec:
embeddings, positions (our interleaved sin/cos table, not CTranslate2's layout), attention (fused
q|k|v, or q + fused k|v), feed-forward and output. Post-norm maps onto `pre_norm=False`; tied
embeddings need nothing, as the spec stores equal variables once.
"""

from __future__ import annotations

import numpy as np
from ctranslate2.converters import Converter
from ctranslate2.specs import common_spec, transformer_spec

from mt.config import ModelConfig
from mt.data.tokenization import SPECIAL_TOKENS
from mt.model.transformer import sinusoidal_table

LAYER_NORM_EPSILON = 1e-5
"""torch.nn.LayerNorm's default, which our model uses; CTranslate2 would otherwise take 1e-6."""

Weights = dict[str, np.ndarray]


class MtConverter(Converter):
    """Converts one trained mt Transformer (config + float32 weights + vocabularies)."""

    def __init__(
        self,
        *,
        config: ModelConfig,
        weights: Weights,
        source_vocabulary: list[str],
        target_vocabulary: list[str],
    ) -> None:
        self._config = config
        self._weights = weights
        self._source_vocabulary = source_vocabulary
        self._target_vocabulary = target_vocabulary

    def _load(self) -> transformer_spec.TransformerSpec:
        config = self._config
        spec = transformer_spec.TransformerSpec.from_config(
            (config.encoder_depth, config.decoder_depth),
            config.heads,
            pre_norm=config.pre_norm,
            activation=common_spec.Activation.RELU,
            # Attention returned for alignments: the last layer averaged over all heads, the
            # same map as Transformer.cross_attention_map.
            alignment_layer=-1,
            alignment_heads=config.heads,
        )
        _set_special_tokens(spec.config)
        spec.config.layer_norm_epsilon = LAYER_NORM_EPSILON
        w = self._weights
        set_embeddings(spec.encoder, w, "src_embedding", config)
        set_embeddings(spec.decoder, w, "tgt_embedding", config)
        for index, layer in enumerate(spec.encoder.layer):
            set_encoder_layer(layer, w, f"encoder.{index}")
        for index, layer in enumerate(spec.decoder.layer):
            set_decoder_layer(layer, w, f"decoder.{index}")
        set_output(spec, w, config)
        spec.register_source_vocabulary(self._source_vocabulary)
        spec.register_target_vocabulary(self._target_vocabulary)
        return spec


def _set_special_tokens(model_config: transformer_spec.TransformerConfig) -> None:
    """Our special labels by name; the source already ends in [EOS] when mt passes it in."""
    pad, unk, bos, eos = SPECIAL_TOKENS
    del pad  # never passed to CTranslate2: it pads batches itself
    model_config.unk_token = unk
    model_config.bos_token = bos
    model_config.eos_token = eos
    model_config.decoder_start_token = bos
    model_config.add_source_bos = False
    model_config.add_source_eos = False


def set_embeddings(stack, w: Weights, scope: str, config: ModelConfig) -> None:
    """Token table (its sqrt(d) scale is the spec's default) and our position table."""
    embeddings = stack.embeddings[0] if isinstance(stack.embeddings, list) else stack.embeddings
    embeddings.weight = w[f"{scope}.tokens.weight"]
    stack.scale_embeddings = True
    table = sinusoidal_table(config.max_positions, config.d_model)
    stack.position_encodings.encodings = table.numpy().astype(np.float32)


def set_layer_norm(spec: common_spec.LayerNormSpec, w: Weights, scope: str) -> None:
    spec.gamma = w[f"{scope}.weight"]
    spec.beta = w[f"{scope}.bias"]


def set_linear(spec: common_spec.LinearSpec, w: Weights, scope: str) -> None:
    spec.weight = w[f"{scope}.weight"]  # (out, in), as torch stores it
    spec.bias = w[f"{scope}.bias"]


def set_self_attention(spec, w: Weights, scope: str, norm_scope: str) -> None:
    """linear[0] is our fused q|k|v projection (same row order), linear[1] the output."""
    set_layer_norm(spec.layer_norm, w, norm_scope)
    set_linear(spec.linear[0], w, f"{scope}.qkv")
    set_linear(spec.linear[1], w, f"{scope}.out")


def set_cross_attention(spec, w: Weights, scope: str, norm_scope: str) -> None:
    """linear[0] queries, linear[1] our fused k|v projection of the memory, linear[2] output."""
    set_layer_norm(spec.layer_norm, w, norm_scope)
    set_linear(spec.linear[0], w, f"{scope}.q")
    set_linear(spec.linear[1], w, f"{scope}.kv")
    set_linear(spec.linear[2], w, f"{scope}.out")


def set_feed_forward(spec, w: Weights, scope: str) -> None:
    """Our nn.Sequential(Linear, ReLU, Dropout, Linear): its Linears are items 0 and 3."""
    set_layer_norm(spec.layer_norm, w, f"{scope}_residual.norm")
    set_linear(spec.linear_0, w, f"{scope}.0")
    set_linear(spec.linear_1, w, f"{scope}.3")


def set_encoder_layer(spec, w: Weights, scope: str) -> None:
    set_self_attention(
        spec.self_attention, w, f"{scope}.attention", f"{scope}.attention_residual.norm"
    )
    set_feed_forward(spec.ffn, w, f"{scope}.feed_forward")


def set_decoder_layer(spec, w: Weights, scope: str) -> None:
    set_self_attention(
        spec.self_attention, w, f"{scope}.self_attention", f"{scope}.self_residual.norm"
    )
    set_cross_attention(
        spec.attention, w, f"{scope}.cross_attention", f"{scope}.cross_residual.norm"
    )
    set_feed_forward(spec.ffn, w, f"{scope}.feed_forward")


def set_output(spec: transformer_spec.TransformerSpec, w: Weights, config: ModelConfig) -> None:
    """Pre-norm stacks end in a layer norm each (post-norm ones have none); then the projection
    to the target vocabulary, bias included."""
    if config.pre_norm:
        set_layer_norm(spec.encoder.layer_norm, w, "encoder_norm")
        set_layer_norm(spec.decoder.layer_norm, w, "decoder_norm")
    set_linear(spec.decoder.projection, w, "projection")
