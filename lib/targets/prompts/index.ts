// Prompt writers for image and audio targets: keyframes, edit references, voices (targets 3.5.6, 3.5.8, 3.5.9).
export { editIntroduction, type IntroRef, type RefRole, refName } from "./edit-intro.ts";
export { actionSentences, type KeyframeInput, type KeyframeRef, keyframePrompt } from "./keyframe.ts";
export { firstSentence, neutralLine, type VoicePromptInput, voicePrompt } from "./voice.ts";
