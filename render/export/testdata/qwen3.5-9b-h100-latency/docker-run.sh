#!/bin/bash
# qwen3.5-9b-h100-latency: the recommended configuration, exported by servelab.
# Serve command: vllm serve Qwen/Qwen3.5-9B --reasoning-parser=qwen3 --max-model-len=32768 '--speculative-config={"method":"mtp","num_speculative_tokens":1}'
docker run \
  --detach \
  --name qwen3-5-9b-h100-latency \
  --gpus 1 \
  --ipc host \
  --publish 8000:8000 \
  --volume hf-cache:/root/.cache/huggingface \
  --env HF_TOKEN \
  --entrypoint vllm \
  vllm/vllm-openai:v0.17.1 serve Qwen/Qwen3.5-9B --reasoning-parser=qwen3 --max-model-len=32768 '--speculative-config={"method":"mtp","num_speculative_tokens":1}' --host=0.0.0.0 --port=8000
