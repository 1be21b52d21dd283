import { useRouteRef } from '@backstage/frontend-plugin-api';
import { Flex, Link, Text } from '@backstage/ui';
import { ReactNode } from 'react';
import type { ClusterPlace } from '@capz-backstage/plugin-capz-common';
import { clusterRouteRef, rootRouteRef } from '../../routes';

/** The frame of a wizard page: breadcrumb back, title (h2; the plugin header is h1), intro, steps. */
export function WizardPage(props: {
  title: string;
  intro: ReactNode;
  cluster?: ClusterPlace;
  children: ReactNode;
}) {
  const root = useRouteRef(rootRouteRef);
  const clusterLink = useRouteRef(clusterRouteRef);
  return (
    <Flex
      direction="column"
      gap="4"
      p="4"
      style={{ maxWidth: 1100 }}
      data-testid="wizard-page"
    >
      <nav aria-label="Breadcrumb">
        <Flex gap="2">
          {root && <Link href={root()}>All clusters</Link>}
          {props.cluster && clusterLink && (
            <>
              <span aria-hidden>/</span>
              <Link href={clusterLink({ ...props.cluster })}>
                {props.cluster.name}
              </Link>
            </>
          )}
        </Flex>
      </nav>
      <Text as="h2" variant="title-medium">
        {props.title}
      </Text>
      <Text as="p" variant="body-medium">
        {props.intro}
      </Text>
      {props.children}
    </Flex>
  );
}
