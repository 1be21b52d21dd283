import { Alert, Flex, Link, Text } from '@backstage/ui';
import type { Day2GitChange } from '@capz-backstage/plugin-capz-common';

const diffStyle = {
  margin: 0,
  padding: 8,
  fontFamily: 'var(--bui-font-monospace, monospace)',
  fontSize: 12,
  lineHeight: 1.5,
  overflowX: 'auto' as const,
  background: 'var(--bui-bg-neutral-1, #f5f5f5)',
  borderRadius: 4,
};

/**
 * A diff line's colour: headers muted, added lines success, removed lines danger. The `-on-bg` text tokens: BUI's
 * `--bui-fg-positive`/`-negative` (#1abc54, #ee3a4c in the light theme) fail WCAG AA contrast on the diff's background
 * (axe in e2e/tests/scaffolder.spec.ts).
 */
function lineColor(l: string): string | undefined {
  if (/^(---|\+\+\+|@@)/.test(l)) return 'var(--bui-fg-secondary, #666)';
  if (l.startsWith('+')) return 'var(--bui-fg-success-on-bg, #116932)';
  if (l.startsWith('-')) return 'var(--bui-fg-danger-on-bg, #991919)';
  return undefined;
}

/** A unified diff, its added and removed lines marked by colour as well as by their +/- sign. */
function Diff({ path, diff }: { path: string; diff: string }) {
  const lines = diff.replace(/\n$/, '').split('\n');
  return (
    <pre aria-label={`Diff of ${path}`} style={diffStyle}>
      {lines.map((l, i) => {
        const color = lineColor(l);
        return (
          <div key={i} style={color ? { color } : undefined}>
            {l || ' '}
          </div>
        );
      })}
    </pre>
  );
}

/**
 * A day-2 plan as a change of the Git repository Flux applies the cluster from: where it goes, the diff of each file,
 * what must be changed by hand, and after the confirm the pull request that carries it.
 */
export function GitChangeView({ git }: { git: Day2GitChange }) {
  const s = git.source;
  const where = s
    ? `${s.url}, branch ${s.branch}${s.path ? `, path ${s.path}` : ''}`
    : undefined;
  return (
    <Flex direction="column" gap="2">
      {git.proposed && (
        <Alert
          role="status"
          status="success"
          icon
          title={
            git.proposed.pullRequest
              ? `Pull request #${git.proposed.pullRequest.number} opened`
              : `Branch ${git.proposed.branch} pushed`
          }
          description={
            <Flex direction="column" gap="1">
              <Text variant="body-small">
                Nothing changed on the cluster: Flux applies the change once it
                is merged into {s?.branch ?? 'the branch Flux follows'}.
              </Text>
              {git.proposed.pullRequest && (
                <Link href={git.proposed.pullRequest.url} target="_blank">
                  Open the pull request
                </Link>
              )}
            </Flex>
          }
        />
      )}
      {!git.proposed && git.proposable && (
        <Alert
          status="info"
          icon
          title="Flux applies these objects from Git: this change becomes a pull request"
          description={`The confirm pushes a branch to ${where} and opens its pull request. Nothing changes on the cluster until it is merged and Flux applies it.`}
        />
      )}
      {!git.proposed && !git.proposable && git.reason && (
        <Alert status="warning" icon title={git.reason} />
      )}
      {git.files.length > 0 && (
        <Flex direction="column" gap="1">
          <Text variant="body-small" weight="bold">
            {git.proposed ? 'Files changed in Git' : 'Files to change in Git'}
            {s ? ` (from ${s.revision}, the revision Flux applied)` : ''}
          </Text>
          {git.files.map(f => (
            <Flex key={f.path} direction="column" gap="1">
              <Text variant="body-small">{f.path}</Text>
              <Diff path={f.path} diff={f.diff} />
            </Flex>
          ))}
        </Flex>
      )}
      {git.byHand.length > 0 && (
        <>
          <Text variant="body-small" weight="bold">
            Change by hand in Git
          </Text>
          <ul
            aria-label="Change by hand in Git"
            style={{ margin: 0, paddingLeft: 20 }}
          >
            {git.byHand.map(b => (
              <li key={b}>
                <Text variant="body-small">{b}</Text>
              </li>
            ))}
          </ul>
        </>
      )}
      {git.notes.length > 0 && (
        <ul
          aria-label="Notes on the Git change"
          style={{ margin: 0, paddingLeft: 20 }}
        >
          {git.notes.map(n => (
            <li key={n}>
              <Text variant="body-small">{n}</Text>
            </li>
          ))}
        </ul>
      )}
    </Flex>
  );
}
