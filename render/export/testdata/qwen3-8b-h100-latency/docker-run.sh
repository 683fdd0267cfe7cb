#!/bin/bash
# qwen3-8b-h100-latency: the recommended configuration, exported by servelab.
# Serve command: python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B-FP8 --speculative-algorithm EAGLE3 --speculative-draft-model-path Tengyunw/qwen3_8b_eagle3 --speculative-num-steps 4 --speculative-eagle-topk 4 --speculative-num-draft-tokens 16
docker run \
  --detach \
  --name qwen3-8b-h100-latency \
  --gpus 1 \
  --ipc host \
  --publish 8000:8000 \
  --volume hf-cache:/root/.cache/huggingface \
  --env HF_TOKEN \
  --entrypoint python3 \
  lmsysorg/sglang:v0.5.3.post3 -m sglang.launch_server --model-path Qwen/Qwen3-8B-FP8 --speculative-algorithm EAGLE3 --speculative-draft-model-path Tengyunw/qwen3_8b_eagle3 --speculative-num-steps 4 --speculative-eagle-topk 4 --speculative-num-draft-tokens 16 --host 0.0.0.0 --port 8000
