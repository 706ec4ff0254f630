/** Tier 2b's port and the slice of the cascade's context it adds (served by the daemon's worker pool). */

/** One remembered record near the call: its memory key and cosine similarity (1 = same direction). */
export interface EmbeddingMatch {
  key: string;
  similarity: number;
}

/**
 * Tier 2b's port to the embedding indexes of the call's scopes (org, project, user, session). Answers the
 * nearest remembered records to a sanitized subject text, best first; `unavailable` (pool down, model not
 * loadable, index being rebuilt) passes the tier on with the reason in the trace — never an allow.
 */
export interface EmbeddingPort {
  nearest(query: {
    text: string;
    tool: string;
    k: number;
  }): Promise<{ matches: EmbeddingMatch[] } | { unavailable: string }>;
}

export interface EmbeddingContext {
  /** Tier 2b's search over the embedding indexes (absent: the tier passes). */
  embedding?: EmbeddingPort;
}
