// Which ComfyUI models folder a loader node's file widget reads, for resolution and messages (targets 4.1).

/** Models folder of a loader's file widget (`CheckpointLoaderSimple.ckpt_name` → `checkpoints`). */
export const LOADER_FOLDERS: Readonly<Record<string, string>> = {
  "UNETLoader.unet_name": "diffusion_models",
  "UnetLoaderGGUF.unet_name": "diffusion_models",
  "CheckpointLoaderSimple.ckpt_name": "checkpoints",
  "CheckpointLoader.ckpt_name": "checkpoints",
  "ImageOnlyCheckpointLoader.ckpt_name": "checkpoints",
  "LTXVAudioVAELoader.ckpt_name": "checkpoints",
  "LTXAVTextEncoderLoader.ckpt_name": "checkpoints",
  "LTXAVTextEncoderLoader.text_encoder": "text_encoders",
  "CLIPLoader.clip_name": "text_encoders",
  "DualCLIPLoader.clip_name1": "text_encoders",
  "DualCLIPLoader.clip_name2": "text_encoders",
  "TripleCLIPLoader.clip_name1": "text_encoders",
  "TripleCLIPLoader.clip_name2": "text_encoders",
  "TripleCLIPLoader.clip_name3": "text_encoders",
  "CLIPVisionLoader.clip_name": "clip_vision",
  "VAELoader.vae_name": "vae",
  "LatentUpscaleModelLoader.model_name": "latent_upscale_models",
  "UpscaleModelLoader.model_name": "upscale_models",
  "ModelPatchLoader.name": "model_patches",
  "LoraLoaderModelOnly.lora_name": "loras",
  "LoraLoader.lora_name": "loras",
  "ControlNetLoader.control_net_name": "controlnet",
  "StyleModelLoader.style_model_name": "style_models",
};
