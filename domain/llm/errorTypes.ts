// Failure types of model calls (pure constants: workflow code imports them for nonRetryableErrorTypes).
export const LLM_ERROR_TYPES = {
  auth: 'LlmAuthError',
  invalidRequest: 'LlmInvalidRequest',
  config: 'LlmConfigError',
  rateLimited: 'LlmRateLimited',
  server: 'LlmServerError',
  timeout: 'LlmTimeout',
  connection: 'LlmConnectionError',
  /** A local model that is not installed: raised non-retryable, its message names the command that installs it. */
  notInstalled: 'LlmModelNotInstalled',
  /** An endpoint that can never be reached (a blocked port, a bad URL, a loopback port nothing listens on): non-retryable, the reason in its message. */
  unreachable: 'LlmEndpointUnreachable',
} as const;
export const NON_RETRYABLE_LLM_ERRORS: string[] = [LLM_ERROR_TYPES.auth, LLM_ERROR_TYPES.invalidRequest, LLM_ERROR_TYPES.config, LLM_ERROR_TYPES.unreachable];
