// Failure types of model calls (pure constants: workflow code imports them for nonRetryableErrorTypes).
export const LLM_ERROR_TYPES = {
  auth: 'LlmAuthError',
  invalidRequest: 'LlmInvalidRequest',
  config: 'LlmConfigError',
  rateLimited: 'LlmRateLimited',
  server: 'LlmServerError',
  timeout: 'LlmTimeout',
  connection: 'LlmConnectionError',
} as const;
export const NON_RETRYABLE_LLM_ERRORS: string[] = [LLM_ERROR_TYPES.auth, LLM_ERROR_TYPES.invalidRequest, LLM_ERROR_TYPES.config];
