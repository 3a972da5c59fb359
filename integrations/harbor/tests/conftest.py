import os

# LiteLLM (Harbor's cost estimates) must not fetch its price table: tests stay offline.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
