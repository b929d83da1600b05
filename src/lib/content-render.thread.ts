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

export type RenderAnswer = { id: number; content: string | undefined; excerpt: string | undefined } | { id: number; error: string };

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

parentPort?.on('message', (job: RenderJob) => parentPort!.postMessage(renderJob(job)));
