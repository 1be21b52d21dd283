import { configApiRef, useApi } from '@backstage/frontend-plugin-api';
import type { FieldExtensionComponentProps } from '@backstage/plugin-scaffolder-react';
import { TextField } from '@backstage/ui';
import { PULL_REQUEST_ACTIONS } from '@capz-backstage/plugin-capz-common';
import { useCallback } from 'react';
import { fieldDescription } from './FieldFrame';
import { PickerSelect } from './PickerSelect';

type Props = FieldExtensionComponentProps<string>;

/** A repository as RepoUrlPicker writes it: `host?owner=o&repo=r` (`project=` on Bitbucket Server). */
export function parseRepoValue(v: string | undefined) {
  const m = /^([^?]+)\?(.*)$/.exec(v ?? '');
  const q = new URLSearchParams(m?.[2] ?? '');
  return {
    host: m?.[1],
    owner: q.get('owner') ?? q.get('project') ?? '',
    repo: q.get('repo') ?? '',
  };
}

/**
 * CapzGitopsRepoPicker: the GitOps repository of the pull-request delivery. Its hosts are the configured
 * `integrations` of the forges the template opens pull requests on (capz-common PULL_REQUEST_ACTIONS), so a new
 * integration needs no template change (Backstage's RepoUrlPicker offers only the template's `allowedHosts`); then
 * the owner (the project on Bitbucket Server) and the repository. The value is RepoUrlPicker's `host?owner=o&repo=r`.
 */
export function GitopsRepoPicker(props: Props) {
  const config = useApi(configApiRef);
  const { onChange, formData } = props;
  const { host, owner, repo } = parseRepoValue(formData);
  const forges = new Map<string, string>();
  for (const forge of Object.keys(PULL_REQUEST_ACTIONS))
    for (const c of config.getOptionalConfigArray(`integrations.${forge}`) ??
      [])
      forges.set(c.getString('host'), forge);
  const ownerKey =
    host && forges.get(host) === 'bitbucketServer' ? 'project' : 'owner';
  const set = useCallback(
    (next: { host?: string; owner?: string; repo?: string }) => {
      const h = next.host ?? host;
      if (!h) return onChange(undefined as unknown as string);
      const q = new URLSearchParams();
      const key = forges.get(h) === 'bitbucketServer' ? 'project' : 'owner';
      q.set(key, next.owner ?? owner);
      q.set('repo', next.repo ?? repo);
      return onChange(`${h}?${q.toString()}`);
    },
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [host, owner, repo, onChange],
  );
  return (
    <>
      <PickerSelect
        testId="capz-gitops-repo-picker"
        label={`${props.schema.title ?? 'GitOps repository'}: host`}
        description={fieldDescription(props)}
        required={props.required}
        disabled={props.disabled || props.readonly}
        rawErrors={props.rawErrors}
        value={host}
        onChange={h => set({ host: h })}
        deps={[]}
        load={async () =>
          [...forges].map(([h, forge]) => ({ id: h, label: `${h} (${forge})` }))
        }
        preferred={o => (o.length === 1 ? o[0].id : undefined)}
      />
      <TextField
        label={ownerKey === 'project' ? 'Project' : 'Owner'}
        isRequired={props.required}
        // The form validates (rjsf and the fields' rules): a native check would block its submit silently.
        validationBehavior="aria"
        isDisabled={props.disabled || props.readonly || !host}
        value={owner}
        onChange={v => set({ owner: v.trim() })}
      />
      <TextField
        label="Repository"
        isRequired={props.required}
        validationBehavior="aria"
        isDisabled={props.disabled || props.readonly || !host}
        value={repo}
        onChange={v => set({ repo: v.trim() })}
      />
    </>
  );
}
