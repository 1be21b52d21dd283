import { configApiRef, useApi } from '@backstage/frontend-plugin-api';
import { Flex, Link, Text } from '@backstage/ui';
import { Fragment, ReactNode } from 'react';
import { CopyButton } from '../shared/CopyButton';

/** A citation of the repository's docs, as the planners write it: `docs/<page>.md#<anchor>`. */
const REF = String.raw`docs\/[\w-]+\.md(?:#[\w-]+)?`;
const REF_PARTS = /docs\/([\w-]+)\.md(?:#([\w-]+))?/g;

/** Longer code than this is a block of its own, folded, with a Copy button; shorter stays inline. */
const INLINE_CODE_MAX = 60;

const PAGE_TITLES: Record<string, string> = {
  'migration-procedure': 'migration procedure',
  'capz-aso-facts': 'CAPZ and ASO facts',
  'azure-facts': 'Azure facts',
  'flux-facts': 'Flux facts',
  'job-guarantees': 'job guarantees',
  architecture: 'architecture',
};

/**
 * `text` without its docs citations, and without the parentheses and separators that held only them:
 * "skip (docs/migration-procedure.md#step-1, docs/capz-aso-facts.md#legacy-pause)." -> "skip.";
 * "(names, docs/capz-aso-facts.md#adoption-names)" -> "(names)".
 */
export function withoutCitations(text: string): string {
  return text
    .replace(new RegExp(String.raw`\s*[,;:]\s*${REF}`, 'g'), '')
    .replace(new RegExp(String.raw`${REF}(?:\s*[,;]\s*)?`, 'g'), '')
    .replace(/\s*\(\s*\)/g, '');
}

/** The link text of a citation: "migration procedure: step 6 2". */
export function citationLabel(page: string, anchor?: string) {
  const title = PAGE_TITLES[page] ?? page.replace(/-/g, ' ');
  return anchor ? `${title}: ${anchor.replace(/-/g, ' ')}` : title;
}

/**
 * Where the docs are rendered (`capz.docsBaseUrl`, e.g. `https://github.com/org/repo/blob/main/docs`): a citation
 * `docs/<page>.md#<anchor>` links to `<base>/<page>.md#<anchor>`. Undefined when not configured: the app has no page
 * that renders them, so citations are left out.
 */
export function useDocsBaseUrl(): string | undefined {
  const config = useApi(configApiRef);
  return config.getOptionalString('capz.docsBaseUrl')?.replace(/\/+$/, '');
}

type Part =
  | { kind: 'text'; text: string }
  | { kind: 'cite'; page: string; anchor?: string }
  | { kind: 'code'; code: string };

/** Splits planner prose into text, citations (only when they can be links) and backticked code. */
export function proseParts(text: string, linkCitations: boolean): Part[] {
  const parts: Part[] = [];
  text.split(/`([^`]+)`/).forEach((chunk, i) => {
    if (i % 2 === 1) {
      parts.push({ kind: 'code', code: chunk });
      return;
    }
    if (!linkCitations) {
      if (chunk) parts.push({ kind: 'text', text: withoutCitations(chunk) });
      return;
    }
    let last = 0;
    for (const m of chunk.matchAll(REF_PARTS)) {
      if (m.index! > last)
        parts.push({ kind: 'text', text: chunk.slice(last, m.index) });
      parts.push({ kind: 'cite', page: m[1], anchor: m[2] });
      last = m.index! + m[0].length;
    }
    if (last < chunk.length)
      parts.push({ kind: 'text', text: chunk.slice(last) });
  });
  return parts;
}

const blockStyle = {
  margin: 0,
  padding: 8,
  overflowX: 'auto' as const,
  whiteSpace: 'pre' as const,
  fontSize: 12,
  maxWidth: '100%',
  background: 'var(--bui-bg-neutral-2, var(--bui-bg-surface-2))',
  borderRadius: 4,
};

/**
 * A long command: folded (one line says what it is and how long), in a monospace block that scrolls sideways
 * rather than wrapping mid-token, with a Copy button (selecting a scrolled block by hand misses what is out of view).
 */
export function CommandBlock({ code }: { code: string }) {
  const what = code.startsWith('kubectl ') ? 'kubectl command' : 'command';
  return (
    <Flex direction="column" gap="1" align="start" data-testid="command">
      <details style={{ maxWidth: '100%' }}>
        <summary>{`Show the ${what} (${code.length} characters)`}</summary>
        {/* Focusable: a keyboard user can scroll it. */}
        {/* eslint-disable-next-line jsx-a11y/no-noninteractive-tabindex */}
        <pre tabIndex={0} style={blockStyle}>
          <code>{code}</code>
        </pre>
      </details>
      <CopyButton text={code} label={`Copy the ${what}`} />
    </Flex>
  );
}

/**
 * Planner prose (a step's description, a check's message or fix) as a user reads it: docs citations as links when
 * `capz.docsBaseUrl` is configured and left out otherwise; backticked code inline when short, else a folded block
 * with a Copy button. `lead` starts the first paragraph (e.g. "Fix:").
 */
export function Prose({
  text,
  lead,
  variant = 'body-small',
  color,
}: {
  text: string;
  lead?: ReactNode;
  variant?: 'body-small' | 'body-medium';
  color?: 'secondary';
}) {
  const base = useDocsBaseUrl();
  const blocks: ReactNode[] = [];
  let inline: ReactNode[] = lead ? [lead, ' '] : [];
  const flush = () => {
    if (inline.some(n => typeof n !== 'string' || n.trim()))
      blocks.push(
        <Text
          key={blocks.length}
          as="p"
          variant={variant}
          color={color}
          style={{ margin: 0, overflowWrap: 'anywhere' }}
        >
          {inline.map((n, i) => (
            <Fragment key={i}>{n}</Fragment>
          ))}
        </Text>,
      );
    inline = [];
  };
  let afterBlock = false;
  for (const p of proseParts(text, !!base)) {
    // The sentence ends with the block: its full stop stays out of the next paragraph.
    if (p.kind === 'text')
      inline.push(afterBlock ? p.text.replace(/^\s*[.,;]\s*/, '') : p.text);
    afterBlock = p.kind === 'code' && p.code.length > INLINE_CODE_MAX;
    if (p.kind === 'text') continue;
    if (p.kind === 'cite')
      inline.push(
        <Link
          href={`${base}/${p.page}.md${p.anchor ? `#${p.anchor}` : ''}`}
          target="_blank"
          rel="noopener noreferrer"
        >
          {citationLabel(p.page, p.anchor)}
        </Link>,
      );
    else if (p.code.length <= INLINE_CODE_MAX)
      inline.push(<code>{p.code}</code>);
    else {
      flush();
      blocks.push(<CommandBlock key={blocks.length} code={p.code} />);
    }
  }
  flush();
  return (
    <Flex direction="column" gap="1">
      {blocks}
    </Flex>
  );
}
