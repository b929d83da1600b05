import { parentPort } from 'node:worker_threads';
import { renderContent, renderExcerpt } from './content-render.js';

/** What a post's answer needs rendered: its content, its excerpt (from the raw excerpt, or the content), or both. */
export interface RenderJob {
  id: number;
  content: string;
  /** The raw excerpt, when `excerpt.rendered` is wanted. */
  excerpt: string | undefined;
  renderContent: boolean;
}

/**
 * A render's outcome. `excerptIsContent`: the rendered excerpt is the rendered content, sent once.
 * Content of fewer words than an excerpt takes, without markup an excerpt strips, renders to the
 * same text both ways; sent twice, a 16 MB post's came back as two copies in the heap of the
 * request that asked for them.
 */
export type RenderAnswer = { id: number; content: string | undefined; excerpt: string | undefined; excerptIsContent?: true } | { id: number; error: string };

/** The same functions as the request's own thread renders with, so the output is the same, byte for byte. */
export function renderJob(job: RenderJob): RenderAnswer {
  try {
    return {
      id: job.id,
      content: job.renderContent ? renderContent(job.content) : undefined,
      excerpt: job.excerpt === undefined ? undefined : renderExcerpt(job.excerpt, job.content),
    };
  } catch (error) {
    return { id: job.id, error: error instanceof Error ? error.message : String(error) };
  }
}

/** The answer as the thread sends it: an excerpt the same as the content is not sent again. */
export function sentAnswer(answer: RenderAnswer): RenderAnswer {
  if ('error' in answer || answer.content === undefined || answer.excerpt !== answer.content) return answer;
  return { id: answer.id, content: answer.content, excerpt: undefined, excerptIsContent: true };
}

parentPort?.on('message', (job: RenderJob) => parentPort!.postMessage(sentAnswer(renderJob(job))));
