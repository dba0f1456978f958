/** Carried by `GET /health` and by the fetch User-Agent (product token with version 1.0). */
export const SUMMARIZER_VERSION = "1.0.0";
export const SUMMARIZER_SERVICE = "web-summarizer";
/** Product token of the User-Agent: `AgentPlatformSummarizer/1.0`. */
export const SUMMARIZER_PRODUCT = "AgentPlatformSummarizer";
