// Generated from openapi.yaml by scripts/generate-openapi.mjs (yarn generate:openapi); do not edit.
import { createValidatedOpenApiRouter } from '@backstage/backend-openapi-utils';

export const spec = {
  openapi: '3.1.0',
  info: {
    title: 'capz',
    version: '1',
    description:
      "The CAPZ backend plugin: AKS clusters managed through Cluster API Provider Azure (CAPZ) and Azure Service Operator (ASO) on one or more management clusters, served from the backend's watch cache. Every route but /health needs Backstage credentials and the capz.cluster.read permission, which a policy can limit by management cluster and namespace. Changes are pushed on the Backstage signals channel `capz:changes`.",
    license: {
      name: 'Apache-2.0',
    },
  },
  servers: [
    {
      url: '/',
    },
  ],
  components: {
    parameters: {
      pickerManagementCluster: {
        name: 'managementCluster',
        in: 'query',
        required: true,
        schema: {
          $ref: '#/components/schemas/ManagementClusterName',
        },
      },
      pickerNamespace: {
        name: 'namespace',
        in: 'query',
        required: true,
        schema: {
          $ref: '#/components/schemas/NamespaceName',
        },
      },
      pickerCredentialSecret: {
        name: 'credentialSecret',
        in: 'query',
        required: true,
        schema: {
          $ref: '#/components/schemas/SecretName',
        },
      },
      pickerSubscriptionId: {
        name: 'subscriptionId',
        in: 'query',
        description:
          "Another subscription than the credential Secret's own (AZURE_SUBSCRIPTION_ID).",
        schema: {
          type: 'string',
          pattern: '^[0-9a-fA-F-]{36}$',
        },
      },
      managementCluster: {
        name: 'managementCluster',
        in: 'path',
        required: true,
        description:
          "The management cluster's name (capz.managementClusters[].name).",
        schema: {
          $ref: '#/components/schemas/ManagementClusterName',
        },
      },
      namespace: {
        name: 'namespace',
        in: 'path',
        required: true,
        schema: {
          $ref: '#/components/schemas/NamespaceName',
        },
      },
      name: {
        name: 'name',
        in: 'path',
        required: true,
        description: "The CAPI Cluster's name.",
        schema: {
          $ref: '#/components/schemas/ClusterName',
        },
      },
      fleetRunId: {
        name: 'id',
        in: 'path',
        required: true,
        description: "The fleet run's id.",
        schema: {
          type: 'string',
          pattern:
            '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$',
        },
      },
      jobId: {
        name: 'id',
        in: 'path',
        required: true,
        description: "The job's id.",
        schema: {
          type: 'string',
          minLength: 1,
        },
      },
    },
    responses: {
      Error: {
        description:
          'A Backstage error (400 bad input, 401 no credentials, 403 not allowed, 404 not found).',
        content: {
          'application/json': {
            schema: {
              $ref: '#/components/schemas/Error',
            },
          },
        },
      },
      JobConflict: {
        description: 'A conflict caused by a job, named by `jobId`.',
        content: {
          'application/json': {
            schema: {
              $ref: '#/components/schemas/JobConflict',
            },
          },
        },
      },
      ArmUnavailable: {
        description:
          'Azure is throttling requests or unavailable (ARM answered 429 or 503 after at most one short wait and retry, or Entra ID is unavailable). The message says when to try again, in the user\'s words ("Azure is throttling requests; try again in 30 s (ARM answered 429 ... while ...)"); Retry-After says the same in seconds (docs/azure-facts.md#arm-throttling).',
        headers: {
          'Retry-After': {
            description:
              "Seconds to wait before trying again (ARM's own Retry-After, or 10 when ARM named none).",
            schema: {
              type: 'integer',
              minimum: 0,
            },
          },
        },
        content: {
          'application/json': {
            schema: {
              $ref: '#/components/schemas/Error',
            },
          },
        },
      },
      PreflightFailed: {
        description: 'A preflight check failed; nothing was stored.',
        content: {
          'application/json': {
            schema: {
              $ref: '#/components/schemas/PreflightFailed',
            },
          },
        },
      },
      JobDetails: {
        description: 'The job after the change.',
        content: {
          'application/json': {
            schema: {
              $ref: '#/components/schemas/JobDetails',
            },
          },
        },
      },
    },
    schemas: {
      Error: {
        type: 'object',
        required: ['error'],
        properties: {
          error: {
            type: 'object',
            required: ['name', 'message'],
            properties: {
              name: {
                type: 'string',
              },
              message: {
                type: 'string',
              },
            },
          },
          request: {
            type: 'object',
            properties: {
              method: {
                type: 'string',
              },
              url: {
                type: 'string',
              },
            },
          },
          response: {
            type: 'object',
            properties: {
              statusCode: {
                type: 'integer',
              },
            },
          },
        },
      },
      Health: {
        type: 'string',
        enum: [
          'healthy',
          'progressing',
          'degraded',
          'failed',
          'paused',
          'deleting',
          'unknown',
        ],
      },
      ManagementCluster: {
        type: 'object',
        additionalProperties: false,
        required: ['name', 'authMethod', 'status'],
        properties: {
          name: {
            type: 'string',
          },
          title: {
            type: 'string',
          },
          url: {
            type: 'string',
          },
          authMethod: {
            type: 'string',
            enum: ['serviceAccountToken', 'kubeconfig', 'azure'],
          },
          status: {
            type: 'object',
            additionalProperties: false,
            required: ['state'],
            properties: {
              state: {
                type: 'string',
                enum: ['unknown', 'connected', 'unreachable'],
              },
              version: {
                type: 'string',
              },
              message: {
                type: 'string',
              },
              checkedAt: {
                type: 'string',
                format: 'date-time',
              },
            },
          },
          watch: {
            type: 'object',
            additionalProperties: false,
            required: ['synced', 'kinds'],
            properties: {
              synced: {
                type: 'boolean',
              },
              error: {
                type: 'string',
              },
              kinds: {
                type: 'object',
                additionalProperties: {
                  type: 'object',
                  additionalProperties: false,
                  required: ['synced', 'restarts'],
                  properties: {
                    version: {
                      type: 'string',
                    },
                    synced: {
                      type: 'boolean',
                    },
                    restarts: {
                      type: 'integer',
                    },
                    lastEventAt: {
                      type: 'string',
                    },
                    error: {
                      type: 'string',
                    },
                  },
                },
              },
            },
          },
        },
      },
      CreateClusterResponse: {
        type: 'object',
        additionalProperties: false,
        required: [
          'dryRun',
          'managementCluster',
          'namespace',
          'name',
          'path',
          'objects',
        ],
        properties: {
          dryRun: {
            type: 'boolean',
          },
          managementCluster: {
            type: 'string',
          },
          namespace: {
            type: 'string',
          },
          name: {
            type: 'string',
          },
          path: {
            type: 'string',
            description:
              "The cluster's page in the app, relative to its base URL.",
          },
          objects: {
            type: 'array',
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['apiVersion', 'kind', 'namespace', 'name'],
              properties: {
                apiVersion: {
                  type: 'string',
                },
                kind: {
                  type: 'string',
                },
                namespace: {
                  type: 'string',
                },
                name: {
                  type: 'string',
                },
                uid: {
                  type: 'string',
                },
              },
            },
          },
          warnings: {
            type: 'array',
            description:
              'What was not checked and why (e.g. the Kubernetes version against the versions AKS offers in the region, when ARM cannot be asked); absent when every check ran.',
            items: {
              type: 'string',
            },
          },
        },
      },
      ClusterSummary: {
        type: 'object',
        additionalProperties: false,
        required: ['managementCluster', 'namespace', 'name', 'uid', 'api'],
        properties: {
          managementCluster: {
            type: 'string',
          },
          namespace: {
            type: 'string',
          },
          name: {
            type: 'string',
          },
          uid: {
            type: 'string',
          },
          api: {
            type: 'string',
            enum: ['aso-v1beta1', 'aso-v1alpha1', 'azure-managed'],
            description:
              'ASO-managed at v1beta1, still referenced at v1alpha1, or the deprecated AzureManaged* API.',
          },
          owner: {
            type: 'string',
          },
          health: {
            $ref: '#/components/schemas/Health',
          },
          reason: {
            type: 'string',
          },
          message: {
            type: 'string',
          },
          kubernetesVersion: {
            type: 'string',
          },
          location: {
            type: 'string',
          },
          pools: {
            type: 'object',
            additionalProperties: false,
            description:
              "MachinePools by the worst health of each one's subtree: ready (healthy), updating (progressing), paused (the cluster or pool is paused; its nodes keep running), the rest not ready. updating and paused are left out when 0; replicas sums their current replicas.",
            required: ['total', 'ready', 'replicas'],
            properties: {
              total: {
                type: 'integer',
              },
              ready: {
                type: 'integer',
              },
              updating: {
                type: 'integer',
              },
              paused: {
                type: 'integer',
              },
              replicas: {
                type: 'integer',
              },
            },
          },
          migrationCandidate: {
            type: 'boolean',
          },
          managedFrom: {
            type: 'array',
            description:
              "Set when the cluster's AKS cluster is also managed from elsewhere: the other ASO ManagedClusters (any namespace, any management cluster; reconcile-policy not skip) that point at the same AKS cluster.",
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['managementCluster', 'namespace', 'name'],
              properties: {
                managementCluster: {
                  type: 'string',
                },
                namespace: {
                  type: 'string',
                },
                name: {
                  type: 'string',
                  description: "The ManagedCluster's name.",
                },
                cluster: {
                  type: 'string',
                  description: 'The CAPI Cluster it belongs to',
                  'when known.': null,
                },
              },
            },
          },
          apiServer: {
            type: 'object',
            additionalProperties: false,
            required: ['url'],
            description:
              "The workload cluster's API server from AKS's user kubeconfig (read once per FQDN, public data only), for the catalog's kubernetes.io annotations.",
            properties: {
              url: {
                type: 'string',
              },
              certificateAuthorityData: {
                type: 'string',
                description: 'Base64 PEM.',
              },
            },
          },
          entraId: {
            type: 'boolean',
            description:
              "AKS-managed Entra ID (aadProfile.managed) on the cluster's ManagedCluster.",
          },
          appliedBy: {
            type: 'string',
            description:
              "Who applies the cluster's objects from outside, in words (\"Flux's Kustomization flux-system/clusters\"), when any carries Flux's, Argo CD's or Helm's marks (docs/flux-facts.md#applied-by-rule).",
          },
          gitSource: {
            $ref: '#/components/schemas/ClusterGitSource',
          },
          lifecycle: {
            type: 'object',
            additionalProperties: false,
            description:
              "What the watch cache says of the cluster's version lifecycle, undated (docs/lifecycle-facts.md#attention): long-term support on, the conflicts of a set spec.version with AKS, pools outside AKS's version skew. Absent when there is nothing to say.",
            properties: {
              lts: {
                type: 'boolean',
              },
              conflicts: {
                type: 'array',
                items: {
                  type: 'object',
                  additionalProperties: false,
                  required: ['id', 'message', 'fix'],
                  properties: {
                    id: {
                      type: 'string',
                      enum: [
                        'auto-upgrade-with-version',
                        'upgraded-outside-capz',
                      ],
                    },
                    message: {
                      type: 'string',
                    },
                    fix: {
                      type: 'string',
                    },
                  },
                },
              },
              poolSkews: {
                type: 'array',
                items: {
                  type: 'object',
                  additionalProperties: false,
                  required: [
                    'pool',
                    'poolVersion',
                    'controlPlaneVersion',
                    'behind',
                    'message',
                    'fix',
                  ],
                  properties: {
                    pool: {
                      type: 'string',
                    },
                    poolVersion: {
                      type: 'string',
                    },
                    controlPlaneVersion: {
                      type: 'string',
                    },
                    behind: {
                      type: 'integer',
                      description:
                        'Minor versions the pool is behind its control plane (negative when ahead).',
                    },
                    message: {
                      type: 'string',
                    },
                    fix: {
                      type: 'string',
                    },
                  },
                },
              },
            },
          },
        },
      },
      FluxObjectRef: {
        type: 'object',
        additionalProperties: false,
        required: ['namespace', 'name'],
        properties: {
          namespace: {
            type: 'string',
          },
          name: {
            type: 'string',
          },
        },
      },
      ClusterGitSource: {
        type: 'object',
        additionalProperties: false,
        required: ['kustomization', 'sourceFound', 'suspended', 'inSync'],
        description:
          'Where a cluster Flux applies from Git comes from, read from the watch cache: the Kustomization that applies its Cluster (else the first of its objects it applies), its spec.sourceRef GitRepository, the path and revisions, and whether Flux is in sync (docs/flux-facts.md#flux-source-ref, docs/flux-facts.md#flux-status, docs/flux-facts.md#flux-suspend). Absent when no Kustomization in the cache applies the cluster.',
        properties: {
          kustomization: {
            $ref: '#/components/schemas/FluxObjectRef',
          },
          source: {
            type: 'object',
            additionalProperties: false,
            required: ['kind', 'namespace', 'name'],
            description:
              "The Kustomization's spec.sourceRef; its namespace is the Kustomization's own unless the reference names another.",
            properties: {
              kind: {
                type: 'string',
              },
              namespace: {
                type: 'string',
              },
              name: {
                type: 'string',
              },
            },
          },
          sourceFound: {
            type: 'boolean',
            description:
              'The source is a GitRepository the watch cache holds; when false, url, branch, ref and sourceRevision are absent.',
          },
          url: {
            type: 'string',
            description: "The GitRepository's spec.url, without credentials.",
          },
          branch: {
            type: 'string',
            description:
              'The branch the GitRepository follows (spec.ref.branch, master without a ref); absent with ref.',
          },
          ref: {
            type: 'object',
            additionalProperties: false,
            required: ['type', 'value'],
            description: 'What the GitRepository follows instead of a branch.',
            properties: {
              type: {
                type: 'string',
                enum: ['commit', 'name', 'semver', 'tag'],
              },
              value: {
                type: 'string',
              },
            },
          },
          path: {
            type: 'string',
            description:
              "The Kustomization's spec.path (the repository root when absent).",
          },
          lastAppliedRevision: {
            type: 'string',
            description:
              "The Kustomization's status.lastAppliedRevision, <branch>@sha1:<commit>.",
          },
          sourceRevision: {
            type: 'string',
            description: "The GitRepository's status.artifact.revision.",
          },
          ready: {
            type: 'object',
            additionalProperties: false,
            required: ['status'],
            description: "The Kustomization's Ready condition.",
            properties: {
              status: {
                type: 'string',
                enum: ['True', 'False', 'Unknown'],
              },
              reason: {
                type: 'string',
              },
              message: {
                type: 'string',
              },
            },
          },
          suspended: {
            type: 'boolean',
            description: "The Kustomization's spec.suspend.",
          },
          generation: {
            type: 'integer',
          },
          observedGeneration: {
            type: 'integer',
          },
          inSync: {
            type: 'boolean',
            description:
              "Ready is True, not suspended, observedGeneration equals generation, and lastAppliedRevision is the GitRepository's artifact revision.",
          },
        },
      },
      Condition: {
        type: 'object',
        additionalProperties: false,
        required: ['type', 'status'],
        properties: {
          type: {
            type: 'string',
          },
          status: {
            type: 'string',
            enum: ['True', 'False', 'Unknown'],
          },
          reason: {
            type: 'string',
          },
          message: {
            type: 'string',
          },
          severity: {
            type: 'string',
          },
          lastTransitionTime: {
            type: 'string',
          },
          observedGeneration: {
            type: 'integer',
          },
        },
      },
      TreeNode: {
        type: 'object',
        additionalProperties: false,
        required: [
          'id',
          'kind',
          'name',
          'health',
          'conditions',
          'facts',
          'children',
        ],
        properties: {
          id: {
            type: 'string',
          },
          kind: {
            type: 'string',
          },
          apiVersion: {
            type: 'string',
          },
          namespace: {
            type: 'string',
          },
          name: {
            type: 'string',
          },
          uid: {
            type: 'string',
          },
          health: {
            $ref: '#/components/schemas/Health',
          },
          reason: {
            type: 'string',
          },
          message: {
            type: 'string',
          },
          severity: {
            type: 'string',
          },
          since: {
            type: 'string',
          },
          source: {
            type: 'object',
            additionalProperties: false,
            required: ['id', 'kind', 'name'],
            properties: {
              id: {
                type: 'string',
              },
              kind: {
                type: 'string',
              },
              name: {
                type: 'string',
              },
            },
          },
          conditions: {
            type: 'array',
            items: {
              $ref: '#/components/schemas/Condition',
            },
          },
          facts: {
            type: 'object',
            additionalProperties: {
              oneOf: [
                {
                  type: 'string',
                },
                {
                  type: 'number',
                },
                {
                  type: 'boolean',
                },
              ],
            },
          },
          children: {
            type: 'array',
            items: {
              $ref: '#/components/schemas/TreeNode',
            },
          },
          group: {
            type: 'object',
            additionalProperties: false,
            required: ['kind', 'count', 'names'],
            properties: {
              kind: {
                type: 'string',
              },
              count: {
                type: 'integer',
              },
              names: {
                type: 'array',
                items: {
                  type: 'string',
                },
              },
            },
          },
        },
      },
      ConditionTransition: {
        type: 'object',
        additionalProperties: false,
        required: [
          'objectUid',
          'kind',
          'name',
          'conditionType',
          'status',
          'transitionTime',
          'firstSeen',
        ],
        properties: {
          objectUid: {
            type: 'string',
          },
          kind: {
            type: 'string',
          },
          name: {
            type: 'string',
          },
          conditionType: {
            type: 'string',
          },
          status: {
            type: 'string',
            enum: ['True', 'False', 'Unknown'],
          },
          reason: {
            type: 'string',
          },
          severity: {
            type: 'string',
          },
          message: {
            type: 'string',
          },
          transitionTime: {
            type: 'string',
          },
          firstSeen: {
            type: 'string',
          },
        },
      },
      ObjectDeletion: {
        type: 'object',
        additionalProperties: false,
        required: ['objectUid', 'kind', 'name', 'deletedAt'],
        properties: {
          objectUid: {
            type: 'string',
          },
          kind: {
            type: 'string',
          },
          name: {
            type: 'string',
          },
          deletedAt: {
            type: 'string',
          },
        },
      },
      TimelineEvent: {
        type: 'object',
        additionalProperties: false,
        required: [
          'objectUid',
          'kind',
          'name',
          'type',
          'count',
          'firstTimestamp',
          'lastTimestamp',
        ],
        properties: {
          objectUid: {
            type: 'string',
          },
          kind: {
            type: 'string',
          },
          name: {
            type: 'string',
          },
          type: {
            type: 'string',
          },
          reason: {
            type: 'string',
          },
          message: {
            type: 'string',
          },
          count: {
            type: 'integer',
          },
          firstTimestamp: {
            type: 'string',
          },
          lastTimestamp: {
            type: 'string',
          },
          source: {
            type: 'string',
          },
        },
      },
      ManagementClusterName: {
        title: 'a management cluster name',
        description:
          "lowercase letters, digits and '-', starting and ending with a letter or digit, at most 63 characters",
        type: 'string',
        maxLength: 63,
        pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$',
      },
      NamespaceName: {
        title: 'a Kubernetes namespace name',
        description:
          "lowercase letters, digits and '-', starting and ending with a letter or digit, at most 63 characters",
        type: 'string',
        maxLength: 63,
        pattern: '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$',
      },
      SecretName: {
        title: 'a Kubernetes Secret name',
        description:
          "lowercase letters, digits, '-' and '.', starting and ending with a letter or digit, with a letter or digit on each side of every '.', at most 253 characters",
        type: 'string',
        maxLength: 253,
        pattern:
          '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$',
      },
      ClusterName: {
        title: 'a Cluster API Cluster name',
        description:
          "lowercase letters, digits, '-' and '.', starting and ending with a letter or digit, with a letter or digit on each side of every '.', at most 63 characters",
        type: 'string',
        maxLength: 63,
        pattern:
          '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$',
      },
      JobConflict: {
        description:
          'A Backstage error body (ConflictError) whose cause is a job: the job in the way of a new one, or the job whose state refuses the action. `jobId` names it (also serialized in `error.jobId`).',
        allOf: [
          {
            $ref: '#/components/schemas/Error',
          },
          {
            type: 'object',
            required: ['jobId'],
            properties: {
              jobId: {
                type: 'string',
              },
            },
          },
        ],
      },
      PreflightFailed: {
        description:
          'A Backstage error body (name PreflightFailedError) with the preflight checks; at least one has status fail.',
        allOf: [
          {
            $ref: '#/components/schemas/Error',
          },
          {
            type: 'object',
            required: ['preflight'],
            properties: {
              preflight: {
                type: 'array',
                items: {
                  $ref: '#/components/schemas/PreflightCheck',
                },
              },
            },
          },
        ],
      },
      AdoptJobRequest: {
        type: 'object',
        additionalProperties: false,
        required: ['type', 'params'],
        properties: {
          type: {
            type: 'string',
            enum: ['adopt'],
          },
          params: {
            type: 'object',
            additionalProperties: false,
            required: [
              'managementCluster',
              'namespace',
              'credentialSecret',
              'subscriptionId',
              'resourceGroup',
              'clusterName',
            ],
            properties: {
              managementCluster: {
                $ref: '#/components/schemas/ManagementClusterName',
              },
              namespace: {
                $ref: '#/components/schemas/NamespaceName',
              },
              credentialSecret: {
                $ref: '#/components/schemas/SecretName',
              },
              subscriptionId: {
                type: 'string',
                minLength: 1,
              },
              resourceGroup: {
                type: 'string',
                minLength: 1,
                maxLength: 90,
              },
              clusterName: {
                type: 'string',
                minLength: 1,
                maxLength: 63,
              },
            },
          },
        },
      },
      MigrateJobRequest: {
        type: 'object',
        additionalProperties: false,
        required: ['type', 'params'],
        properties: {
          type: {
            type: 'string',
            enum: ['migrate'],
          },
          params: {
            type: 'object',
            additionalProperties: false,
            required: [
              'managementCluster',
              'namespace',
              'name',
              'targetNamespace',
            ],
            properties: {
              managementCluster: {
                $ref: '#/components/schemas/ManagementClusterName',
              },
              namespace: {
                $ref: '#/components/schemas/NamespaceName',
              },
              name: {
                $ref: '#/components/schemas/ClusterName',
              },
              targetNamespace: {
                $ref: '#/components/schemas/NamespaceName',
              },
            },
          },
        },
      },
      UpgradeApiVersionJobRequest: {
        type: 'object',
        additionalProperties: false,
        required: ['type', 'params'],
        properties: {
          type: {
            type: 'string',
            enum: ['upgrade-api-version'],
          },
          params: {
            type: 'object',
            additionalProperties: false,
            required: ['managementCluster', 'namespace', 'name'],
            properties: {
              managementCluster: {
                $ref: '#/components/schemas/ManagementClusterName',
              },
              namespace: {
                $ref: '#/components/schemas/NamespaceName',
              },
              name: {
                $ref: '#/components/schemas/ClusterName',
              },
            },
          },
        },
      },
      JobRequest: {
        description:
          "What to do (capz-common's JobRequest); `type` selects the params.",
        oneOf: [
          {
            $ref: '#/components/schemas/AdoptJobRequest',
          },
          {
            $ref: '#/components/schemas/MigrateJobRequest',
          },
          {
            $ref: '#/components/schemas/UpgradeApiVersionJobRequest',
          },
        ],
        discriminator: {
          propertyName: 'type',
          mapping: {
            adopt: '#/components/schemas/AdoptJobRequest',
            migrate: '#/components/schemas/MigrateJobRequest',
            'upgrade-api-version':
              '#/components/schemas/UpgradeApiVersionJobRequest',
          },
        },
      },
      ClusterPlace: {
        type: 'object',
        description:
          "One CAPI Cluster, by where it lives (capz-common's ClusterPlace).",
        required: ['managementCluster', 'namespace', 'name'],
        properties: {
          managementCluster: {
            type: 'string',
          },
          namespace: {
            type: 'string',
          },
          name: {
            type: 'string',
          },
        },
      },
      FleetClusterRef: {
        type: 'object',
        description: 'One cluster of a fleet run, by where it lives.',
        additionalProperties: false,
        required: ['managementCluster', 'namespace', 'name'],
        properties: {
          managementCluster: {
            $ref: '#/components/schemas/ManagementClusterName',
          },
          namespace: {
            $ref: '#/components/schemas/NamespaceName',
          },
          name: {
            $ref: '#/components/schemas/ClusterName',
          },
        },
      },
      FleetStageCluster: {
        type: 'object',
        description:
          "A cluster of a stage, and its group: the groups of a stage run side by side (up to the run's concurrency), the clusters of one group one after the other. A cluster without a group is a group of its own.",
        additionalProperties: false,
        required: ['managementCluster', 'namespace', 'name'],
        properties: {
          managementCluster: {
            $ref: '#/components/schemas/ManagementClusterName',
          },
          namespace: {
            $ref: '#/components/schemas/NamespaceName',
          },
          name: {
            $ref: '#/components/schemas/ClusterName',
          },
          group: {
            type: 'string',
            minLength: 1,
            maxLength: 63,
          },
        },
      },
      FleetRunTarget: {
        description:
          'What the run does to every cluster: upgrade it to `next-minor`, the newest patch of the next minor version AKS offers in its region, or to one `version`; or `migrate` it to the ASO API.',
        oneOf: [
          {
            type: 'object',
            additionalProperties: false,
            required: ['kind'],
            properties: {
              kind: {
                type: 'string',
                enum: ['next-minor'],
              },
            },
          },
          {
            type: 'object',
            additionalProperties: false,
            required: ['kind', 'version'],
            properties: {
              kind: {
                type: 'string',
                enum: ['version'],
              },
              version: {
                type: 'string',
                pattern: '^v?[0-9]+\\.[0-9]+\\.[0-9]+$',
              },
            },
          },
          {
            type: 'object',
            description:
              "A migration wave: each legacy cluster (AzureManagedControlPlane) moved to AzureASOManagedControlPlane by its own migration job. `targetNamespace` names each cluster's new namespace (created by its job, so it must not exist yet), `{namespace}` and `{name}` standing for the cluster's; default `{namespace}-{name}`.",
            additionalProperties: false,
            required: ['kind'],
            properties: {
              kind: {
                type: 'string',
                enum: ['migrate'],
              },
              targetNamespace: {
                type: 'string',
                minLength: 1,
                maxLength: 200,
              },
            },
          },
        ],
      },
      FleetRunSpec: {
        type: 'object',
        additionalProperties: false,
        required: ['target', 'stages'],
        properties: {
          target: {
            $ref: '#/components/schemas/FleetRunTarget',
          },
          stages: {
            type: 'array',
            minItems: 1,
            maxItems: 20,
            description: 'In order; a cluster belongs to one stage.',
            items: {
              type: 'object',
              additionalProperties: false,
              required: ['name', 'clusters'],
              properties: {
                name: {
                  type: 'string',
                  minLength: 1,
                  maxLength: 63,
                },
                clusters: {
                  type: 'array',
                  minItems: 1,
                  maxItems: 10000,
                  items: {
                    $ref: '#/components/schemas/FleetStageCluster',
                  },
                },
              },
            },
          },
          concurrency: {
            type: 'integer',
            minimum: 1,
            maximum: 50,
            description:
              'Clusters of a stage upgraded at the same time (default 1).',
          },
        },
      },
      FleetClusterPlan: {
        type: 'object',
        required: [
          'managementCluster',
          'namespace',
          'name',
          'outcome',
          'steps',
          'problems',
        ],
        properties: {
          managementCluster: {
            type: 'string',
          },
          namespace: {
            type: 'string',
          },
          name: {
            type: 'string',
          },
          group: {
            type: 'string',
          },
          outcome: {
            type: 'string',
            enum: ['upgrade', 'current', 'refused'],
          },
          from: {
            type: 'string',
          },
          to: {
            type: 'string',
          },
          steps: {
            type: 'array',
            items: {
              $ref: '#/components/schemas/FleetStep',
            },
          },
          problems: {
            type: 'array',
            items: {
              type: 'string',
            },
          },
        },
      },
      FleetStep: {
        description: "A step of a cluster's part, an upgrade or a job.",
        oneOf: [
          {
            $ref: '#/components/schemas/FleetUpgradeStep',
          },
          {
            $ref: '#/components/schemas/FleetJobStep',
          },
        ],
      },
      FleetJobStep: {
        type: 'object',
        description:
          "A cluster's part carried out by a job (a migration wave's migration job): the request as previewed, started once per run, cluster and attempt.",
        required: ['kind', 'request', 'title', 'plan', 'warnings'],
        properties: {
          kind: {
            type: 'string',
            enum: ['job'],
          },
          request: {
            $ref: '#/components/schemas/JobRequest',
          },
          title: {
            type: 'string',
          },
          plan: {
            type: 'array',
            description: "The job's steps as its preview plans them, by title.",
            items: {
              type: 'string',
            },
          },
          warnings: {
            type: 'array',
            items: {
              type: 'string',
            },
          },
        },
      },
      FleetUpgradeStep: {
        type: 'object',
        description:
          "One upgrade of a cluster's part, as the single-cluster upgrade plans it.",
        required: ['target', 'version', 'changes', 'warnings'],
        properties: {
          kind: {
            type: 'string',
            enum: ['upgrade'],
          },
          target: {
            description: '"controlPlane", or the pools it upgrades',
            oneOf: [
              {
                type: 'string',
                enum: ['controlPlane'],
              },
              {
                type: 'object',
                required: ['pools'],
                properties: {
                  pools: {
                    type: 'array',
                    items: {
                      type: 'string',
                    },
                  },
                },
              },
            ],
          },
          version: {
            type: 'string',
          },
          changes: {
            type: 'array',
            items: {
              $ref: '#/components/schemas/Day2ObjectChange',
            },
          },
          warnings: {
            type: 'array',
            items: {
              type: 'string',
            },
          },
          effects: {
            type: 'array',
            items: {
              type: 'string',
            },
          },
          throughGit: {
            type: 'string',
            description:
              'Set when a Flux Kustomization applies the objects the step changes: the step is proposed as a pull request (day 2 through Git) and applied by Flux once someone merges it; in words, naming the Kustomization. Without a Git delivery such a cluster is refused with the GitOps blocker instead.',
          },
        },
      },
      FleetRunOptions: {
        type: 'object',
        additionalProperties: false,
        properties: {
          gates: {
            type: 'object',
            description:
              'Per stage name, what it must pass before the next stage starts: a soak (seconds every cluster it upgraded stays healthy) and an approval (capz.fleet.run.approve). Default: none.',
            additionalProperties: {
              type: 'object',
              additionalProperties: false,
              properties: {
                soakSeconds: {
                  type: 'integer',
                  minimum: 0,
                  maximum: 2592000,
                },
                approval: {
                  type: 'boolean',
                },
              },
            },
          },
          maxFailures: {
            type: 'integer',
            minimum: 0,
            maximum: 10000,
            description:
              'Failed clusters tolerated before the run stops (default 0, fail-fast).',
          },
          stepTimeoutSeconds: {
            type: 'integer',
            minimum: 60,
            maximum: 604800,
            description:
              "A step not observed done in this time fails its cluster (default four hours). Time a step waits for a person (a migration job's pull request to be merged, bounded by the job's own seven days, or a paused job to be resumed or cancelled) is not counted.",
          },
        },
      },
      FleetRunRecord: {
        type: 'object',
        description:
          "A fleet run as stored (capz-common's FleetRun with its id and creator).",
        required: ['id', 'createdBy', 'createdAt', 'updatedAt', 'run'],
        properties: {
          id: {
            type: 'string',
          },
          createdBy: {
            type: 'string',
          },
          createdAt: {
            type: 'string',
            format: 'date-time',
          },
          updatedAt: {
            type: 'string',
            format: 'date-time',
          },
          run: {
            type: 'object',
            required: [
              'state',
              'target',
              'concurrency',
              'maxFailures',
              'stepTimeoutSeconds',
              'failures',
              'stages',
            ],
            properties: {
              state: {
                type: 'string',
                enum: [
                  'running',
                  'paused',
                  'stopping',
                  'succeeded',
                  'failed',
                  'cancelled',
                ],
              },
              stopReason: {
                type: 'string',
                enum: ['failures', 'cancelled'],
              },
              target: {
                $ref: '#/components/schemas/FleetRunTarget',
              },
              concurrency: {
                type: 'integer',
              },
              maxFailures: {
                type: 'integer',
              },
              stepTimeoutSeconds: {
                type: 'integer',
              },
              failures: {
                type: 'integer',
              },
              stages: {
                type: 'array',
                items: {
                  type: 'object',
                  required: [
                    'name',
                    'soakSeconds',
                    'approval',
                    'state',
                    'clusters',
                  ],
                  properties: {
                    name: {
                      type: 'string',
                    },
                    soakSeconds: {
                      type: 'integer',
                    },
                    approval: {
                      type: 'boolean',
                    },
                    state: {
                      type: 'string',
                      enum: [
                        'waiting',
                        'running',
                        'soaking',
                        'awaiting-approval',
                        'succeeded',
                        'cancelled',
                      ],
                    },
                    soakUntil: {
                      type: 'string',
                      format: 'date-time',
                    },
                    gate: {
                      type: 'string',
                    },
                    approvedBy: {
                      type: 'string',
                    },
                    clusters: {
                      type: 'array',
                      items: {
                        type: 'object',
                        required: [
                          'managementCluster',
                          'namespace',
                          'name',
                          'state',
                          'steps',
                          'step',
                          'written',
                        ],
                        properties: {
                          managementCluster: {
                            type: 'string',
                          },
                          namespace: {
                            type: 'string',
                          },
                          name: {
                            type: 'string',
                          },
                          group: {
                            type: 'string',
                          },
                          state: {
                            type: 'string',
                            enum: [
                              'waiting',
                              'running',
                              'succeeded',
                              'failed',
                              'skipped',
                              'cancelled',
                            ],
                          },
                          steps: {
                            type: 'array',
                            items: {
                              $ref: '#/components/schemas/FleetStep',
                            },
                          },
                          step: {
                            type: 'integer',
                          },
                          written: {
                            type: 'boolean',
                          },
                          stepStartedAt: {
                            type: 'string',
                            format: 'date-time',
                          },
                          waitingForPersonSince: {
                            type: 'string',
                            format: 'date-time',
                            description:
                              "Since when its step waits for a person (its job's pull request to be merged, or its paused job to be resumed or cancelled; the message names it): that time does not count against the step timeout, which counts again from the moment the person acted.",
                          },
                          finishedAt: {
                            type: 'string',
                            format: 'date-time',
                          },
                          message: {
                            type: 'string',
                          },
                          jobId: {
                            type: 'string',
                            description:
                              'The job carrying out its current (or last) job step.',
                          },
                          proposal: {
                            type: 'object',
                            description:
                              'The pull request (or branch) its current step was proposed as, when Flux applies what the step changes; until Flux applies the merge the cluster waits for a person (its message says which pull request), and that wait is not timed.',
                            required: ['branch'],
                            properties: {
                              branch: {
                                type: 'string',
                              },
                              pullRequest: {
                                type: 'object',
                                required: ['number', 'url'],
                                properties: {
                                  number: {
                                    type: 'integer',
                                  },
                                  url: {
                                    type: 'string',
                                  },
                                },
                              },
                            },
                          },
                          attempt: {
                            type: 'integer',
                          },
                          movedTo: {
                            $ref: '#/components/schemas/FleetClusterRef',
                          },
                        },
                      },
                    },
                  },
                },
              },
            },
          },
        },
      },
      FleetRunCommand: {
        description:
          'pause, resume, cancel (the clusters being upgraded finish their part); approve a stage awaiting approval (capz.fleet.run.approve); skip a cluster that has not started; retry a failed one.',
        oneOf: [
          {
            type: 'object',
            additionalProperties: false,
            required: ['command'],
            properties: {
              command: {
                type: 'string',
                enum: ['pause', 'resume', 'cancel'],
              },
            },
          },
          {
            type: 'object',
            additionalProperties: false,
            required: ['command', 'stage'],
            properties: {
              command: {
                type: 'string',
                enum: ['approve'],
              },
              stage: {
                type: 'string',
                minLength: 1,
                maxLength: 63,
              },
            },
          },
          {
            type: 'object',
            additionalProperties: false,
            required: ['command', 'cluster'],
            properties: {
              command: {
                type: 'string',
                enum: ['skip', 'retry'],
              },
              cluster: {
                $ref: '#/components/schemas/FleetClusterRef',
              },
            },
          },
        ],
      },
      PreflightCheck: {
        type: 'object',
        required: ['id', 'title', 'status', 'message'],
        properties: {
          id: {
            type: 'string',
          },
          title: {
            type: 'string',
          },
          status: {
            type: 'string',
            enum: ['pass', 'warn', 'fail'],
          },
          message: {
            type: 'string',
          },
          fix: {
            type: 'string',
          },
        },
      },
      StepPlan: {
        type: 'object',
        description:
          "One step exactly as it will run (capz-common's StepPlan).",
        required: [
          'id',
          'title',
          'description',
          'preconditions',
          'actions',
          'waitFor',
          'timeoutSeconds',
        ],
        properties: {
          id: {
            type: 'string',
          },
          title: {
            type: 'string',
          },
          description: {
            type: 'string',
          },
          preconditions: {
            type: 'array',
            items: {
              type: 'object',
            },
          },
          actions: {
            type: 'array',
            items: {
              type: 'object',
            },
          },
          waitFor: {
            type: 'array',
            items: {
              type: 'object',
            },
          },
          timeoutSeconds: {
            type: 'number',
          },
          invariants: {
            type: 'array',
            items: {
              type: 'object',
            },
          },
        },
      },
      Job: {
        type: 'object',
        description: "A job (capz-common's Job).",
        required: [
          'id',
          'type',
          'target',
          'params',
          'createdBy',
          'state',
          'steps',
          'createdAt',
          'updatedAt',
        ],
        properties: {
          id: {
            type: 'string',
          },
          type: {
            type: 'string',
            enum: ['adopt', 'migrate', 'upgrade-api-version'],
          },
          target: {
            $ref: '#/components/schemas/ClusterPlace',
          },
          params: {
            type: 'object',
          },
          createdBy: {
            type: 'string',
          },
          state: {
            type: 'string',
            enum: [
              'queued',
              'running',
              'paused',
              'succeeded',
              'failed',
              'cancelled',
            ],
          },
          requested: {
            type: 'string',
            enum: ['pause', 'cancel'],
          },
          currentStep: {
            type: 'string',
          },
          steps: {
            type: 'array',
            items: {
              type: 'object',
              required: ['id', 'title', 'state', 'attempts'],
              properties: {
                id: {
                  type: 'string',
                },
                title: {
                  type: 'string',
                },
                state: {
                  type: 'string',
                  enum: [
                    'pending',
                    'running',
                    'succeeded',
                    'failed',
                    'skipped',
                  ],
                },
                attempts: {
                  type: 'integer',
                },
                startedAt: {
                  type: 'string',
                },
                finishedAt: {
                  type: 'string',
                },
                message: {
                  type: 'string',
                },
              },
            },
          },
          createdAt: {
            type: 'string',
          },
          updatedAt: {
            type: 'string',
          },
          finishedAt: {
            type: 'string',
          },
          error: {
            type: 'string',
          },
          leftBehind: {
            type: 'string',
          },
          result: {
            type: 'object',
          },
        },
      },
      JobDetails: {
        description:
          'The job with its plan and the newest log lines (oldest first; the last 500).',
        allOf: [
          {
            $ref: '#/components/schemas/Job',
          },
          {
            type: 'object',
            required: ['plan', 'log'],
            properties: {
              plan: {
                type: 'array',
                items: {
                  $ref: '#/components/schemas/StepPlan',
                },
              },
              log: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['at', 'level', 'message'],
                  properties: {
                    at: {
                      type: 'string',
                    },
                    level: {
                      type: 'string',
                      enum: ['info', 'warn', 'error'],
                    },
                    step: {
                      type: 'string',
                    },
                    message: {
                      type: 'string',
                    },
                  },
                },
              },
            },
          },
        ],
      },
      Day2Action: {
        description:
          "One day-2 action (capz-common day2/api.ts Day2Action); `action` selects the fields it takes, and a field another action takes is refused. Only the shape is checked here; the rules (counts, versions, names) are capz-common's, which answer a 400 naming the rule.",
        type: 'object',
        required: ['action'],
        oneOf: [
          {
            $ref: '#/components/schemas/Day2ScaleAction',
          },
          {
            $ref: '#/components/schemas/Day2AutoscaleAction',
          },
          {
            $ref: '#/components/schemas/Day2UpgradeAction',
          },
          {
            $ref: '#/components/schemas/Day2AddPoolAction',
          },
          {
            $ref: '#/components/schemas/Day2RemovePoolAction',
          },
          {
            $ref: '#/components/schemas/Day2PauseAction',
          },
          {
            $ref: '#/components/schemas/Day2ResumeAction',
          },
        ],
        discriminator: {
          propertyName: 'action',
          mapping: {
            scale: '#/components/schemas/Day2ScaleAction',
            autoscale: '#/components/schemas/Day2AutoscaleAction',
            upgrade: '#/components/schemas/Day2UpgradeAction',
            addPool: '#/components/schemas/Day2AddPoolAction',
            removePool: '#/components/schemas/Day2RemovePoolAction',
            pause: '#/components/schemas/Day2PauseAction',
            resume: '#/components/schemas/Day2ResumeAction',
          },
        },
        properties: {
          action: {
            type: 'string',
            enum: [
              'scale',
              'autoscale',
              'upgrade',
              'addPool',
              'removePool',
              'pause',
              'resume',
            ],
          },
          planDigest: {
            type: 'string',
            pattern: '^[0-9a-f]{64}$',
            description:
              'On a confirm (ApplyClusterAction), the `planDigest` of the preview the user saw: the backend writes that plan or answers 409 ("changed since the preview"). Ignored by the preview itself.',
          },
        },
      },
      Day2ScaleAction: {
        type: 'object',
        additionalProperties: false,
        required: ['action', 'pool', 'replicas'],
        properties: {
          action: {
            type: 'string',
            enum: ['scale'],
          },
          pool: {
            type: 'string',
            minLength: 1,
            maxLength: 63,
            description: "the name of one of the cluster's pools",
          },
          replicas: {
            type: 'number',
          },
          planDigest: {
            $ref: '#/components/schemas/Day2PlanDigest',
          },
        },
      },
      Day2AutoscaleAction: {
        type: 'object',
        additionalProperties: false,
        required: ['action', 'pool', 'enabled'],
        properties: {
          action: {
            type: 'string',
            enum: ['autoscale'],
          },
          pool: {
            type: 'string',
            minLength: 1,
            maxLength: 63,
            description: "the name of one of the cluster's pools",
          },
          enabled: {
            type: 'boolean',
          },
          minCount: {
            type: 'number',
          },
          maxCount: {
            type: 'number',
          },
          planDigest: {
            $ref: '#/components/schemas/Day2PlanDigest',
          },
        },
      },
      Day2UpgradeAction: {
        type: 'object',
        additionalProperties: false,
        required: ['action', 'version', 'target'],
        properties: {
          action: {
            type: 'string',
            enum: ['upgrade'],
          },
          version: {
            type: 'string',
            minLength: 1,
            maxLength: 40,
          },
          target: {
            description:
              '"controlPlane", or an object whose pools field lists the pools to upgrade (1 to 100 pool names)',
            oneOf: [
              {
                type: 'string',
                enum: ['controlPlane'],
              },
              {
                type: 'object',
                additionalProperties: false,
                required: ['pools'],
                properties: {
                  pools: {
                    type: 'array',
                    minItems: 1,
                    maxItems: 100,
                    items: {
                      type: 'string',
                      minLength: 1,
                      maxLength: 63,
                    },
                  },
                },
              },
            ],
          },
          planDigest: {
            $ref: '#/components/schemas/Day2PlanDigest',
          },
        },
      },
      Day2AddPoolAction: {
        type: 'object',
        additionalProperties: false,
        required: ['action', 'pool'],
        properties: {
          action: {
            type: 'string',
            enum: ['addPool'],
          },
          pool: {
            type: 'object',
            additionalProperties: false,
            required: ['name', 'mode', 'osType', 'vmSize', 'replicas'],
            properties: {
              name: {
                type: 'string',
                minLength: 1,
                maxLength: 63,
              },
              mode: {
                type: 'string',
                enum: ['System', 'User'],
              },
              osType: {
                type: 'string',
                enum: ['Linux', 'Windows'],
              },
              vmSize: {
                type: 'string',
                minLength: 1,
                maxLength: 100,
              },
              replicas: {
                type: 'number',
              },
            },
          },
          planDigest: {
            $ref: '#/components/schemas/Day2PlanDigest',
          },
        },
      },
      Day2RemovePoolAction: {
        type: 'object',
        additionalProperties: false,
        required: ['action', 'pool'],
        properties: {
          action: {
            type: 'string',
            enum: ['removePool'],
          },
          pool: {
            type: 'string',
            minLength: 1,
            maxLength: 63,
            description: "the name of one of the cluster's pools",
          },
          planDigest: {
            $ref: '#/components/schemas/Day2PlanDigest',
          },
        },
      },
      Day2PauseAction: {
        type: 'object',
        additionalProperties: false,
        required: ['action'],
        properties: {
          action: {
            type: 'string',
            enum: ['pause'],
          },
          planDigest: {
            $ref: '#/components/schemas/Day2PlanDigest',
          },
        },
      },
      Day2ResumeAction: {
        type: 'object',
        additionalProperties: false,
        required: ['action'],
        properties: {
          action: {
            type: 'string',
            enum: ['resume'],
          },
          planDigest: {
            $ref: '#/components/schemas/Day2PlanDigest',
          },
        },
      },
      Day2PlanDigest: {
        description:
          'the planDigest of the preview the user saw (64 lowercase hexadecimal digits)',
        type: 'string',
        pattern: '^[0-9a-f]{64}$',
      },
      Day2ObjectChange: {
        type: 'object',
        required: [
          'apiVersion',
          'kind',
          'namespace',
          'name',
          'operation',
          'fields',
        ],
        properties: {
          apiVersion: {
            type: 'string',
          },
          kind: {
            type: 'string',
          },
          namespace: {
            type: 'string',
          },
          name: {
            type: 'string',
          },
          operation: {
            type: 'string',
            enum: ['create', 'update', 'delete'],
          },
          fields: {
            type: 'array',
            items: {
              type: 'object',
              required: ['path'],
              properties: {
                path: {
                  type: 'string',
                },
                before: {},
                after: {},
              },
            },
          },
        },
      },
      Day2Plan: {
        type: 'object',
        required: ['action', 'changes', 'warnings', 'applied'],
        properties: {
          action: {
            $ref: '#/components/schemas/Day2Action',
          },
          changes: {
            type: 'array',
            items: {
              $ref: '#/components/schemas/Day2ObjectChange',
            },
          },
          warnings: {
            type: 'array',
            items: {
              type: 'string',
            },
          },
          effects: {
            type: 'array',
            description:
              "What Azure does, in Azure's words (agent pools, VMs, versions), from the same plan as the changes (docs/azure-facts.md#aks-effects).",
            items: {
              type: 'string',
            },
          },
          cautions: {
            type: 'array',
            description:
              'What the live state says about carrying the action out now (AKS busy with another operation, so ASO holds the change back). Read from status: not part of the planDigest.',
            items: {
              type: 'string',
            },
          },
          applied: {
            type: 'boolean',
          },
          appliedBy: {
            type: 'array',
            description:
              'The objects the action changes that Flux, Argo CD or Helm applies, each with who applies it, in words; `blocks` when that controller would put the change back (docs/flux-facts.md#applied-by-rule).',
            items: {
              type: 'object',
              required: ['kind', 'namespace', 'name', 'appliedBy', 'blocks'],
              properties: {
                kind: {
                  type: 'string',
                },
                namespace: {
                  type: 'string',
                },
                name: {
                  type: 'string',
                },
                appliedBy: {
                  type: 'string',
                },
                blocks: {
                  type: 'boolean',
                },
              },
            },
          },
          blockers: {
            type: 'array',
            description:
              'Why the confirm will be refused with 409, in words (a GitOps controller applies an object the action changes, and the change cannot be proposed to Git: see `git`). The preview still answers 200 with the plan.',
            items: {
              type: 'string',
            },
          },
          git: {
            $ref: '#/components/schemas/Day2GitChange',
          },
          planDigest: {
            type: 'string',
            description:
              "A digest of the planned changes and of what they were planned from (each object read: uid, spec, labels, annotations, deletion; not its resourceVersion, which the controllers' status writes move all the time); a confirm sends it back (Day2Action.planDigest).",
          },
        },
      },
      Day2GitChange: {
        type: 'object',
        description:
          'The plan as a change of the Git repository a Flux Kustomization applies its objects from (docs/flux-facts.md#git-edit): the files as unified diffs, made from the revision Flux last applied. When `proposable`, the confirm pushes a branch and opens its pull request (`proposed`) and writes nothing to the cluster; otherwise `reason` says why and the confirm is refused (409).',
        required: ['proposable', 'files', 'byHand', 'notes'],
        properties: {
          proposable: {
            type: 'boolean',
          },
          reason: {
            type: 'string',
          },
          source: {
            type: 'object',
            required: [
              'kustomization',
              'gitRepository',
              'url',
              'branch',
              'path',
              'revision',
            ],
            properties: {
              kustomization: {
                $ref: '#/components/schemas/NamespacedName',
              },
              gitRepository: {
                $ref: '#/components/schemas/NamespacedName',
              },
              url: {
                type: 'string',
              },
              branch: {
                type: 'string',
              },
              path: {
                type: 'string',
              },
              revision: {
                type: 'string',
              },
            },
          },
          files: {
            type: 'array',
            items: {
              type: 'object',
              required: ['path', 'diff'],
              properties: {
                path: {
                  type: 'string',
                },
                diff: {
                  type: 'string',
                },
              },
            },
          },
          byHand: {
            type: 'array',
            items: {
              type: 'string',
            },
          },
          notes: {
            type: 'array',
            items: {
              type: 'string',
            },
          },
          proposed: {
            type: 'object',
            required: ['branch', 'commit'],
            properties: {
              branch: {
                type: 'string',
              },
              commit: {
                type: 'string',
              },
              pullRequest: {
                type: 'object',
                required: ['number', 'url'],
                properties: {
                  number: {
                    type: 'integer',
                  },
                  url: {
                    type: 'string',
                  },
                },
              },
            },
          },
        },
      },
      NamespacedName: {
        type: 'object',
        required: ['namespace', 'name'],
        properties: {
          namespace: {
            type: 'string',
          },
          name: {
            type: 'string',
          },
        },
      },
      AzureImpact: {
        type: 'object',
        required: ['azureType', 'azureName', 'object', 'reason'],
        properties: {
          azureType: {
            type: 'string',
          },
          azureName: {
            type: 'string',
          },
          armId: {
            type: 'string',
          },
          object: {
            type: 'object',
            required: ['kind', 'namespace', 'name'],
            properties: {
              kind: {
                type: 'string',
              },
              namespace: {
                type: 'string',
              },
              name: {
                type: 'string',
              },
            },
          },
          reason: {
            type: 'string',
          },
        },
      },
      DeletePreview: {
        type: 'object',
        required: ['cluster', 'deletes', 'keeps', 'blockers'],
        properties: {
          cluster: {
            type: 'object',
            required: ['managementCluster', 'namespace', 'name', 'paused'],
            properties: {
              managementCluster: {
                type: 'string',
              },
              namespace: {
                type: 'string',
              },
              name: {
                type: 'string',
              },
              paused: {
                type: 'boolean',
              },
            },
          },
          deletes: {
            type: 'array',
            items: {
              $ref: '#/components/schemas/AzureImpact',
            },
          },
          keeps: {
            type: 'array',
            items: {
              $ref: '#/components/schemas/AzureImpact',
            },
          },
          blockers: {
            type: 'array',
            items: {
              type: 'string',
            },
          },
          git: {
            description:
              "For a cluster a Flux Kustomization applies: the delete as a change of its repository (the Cluster's manifest removed, the cluster's other manifests marked kustomize.toolkit.fluxcd.io/reconcile: disabled, so that Flux deletes only the Cluster and CAPI the rest; docs/flux-facts.md#git-delete). The confirm proposes it as a pull request.",
            allOf: [
              {
                $ref: '#/components/schemas/Day2GitChange',
              },
            ],
          },
          planDigest: {
            $ref: '#/components/schemas/Day2PlanDigest',
          },
        },
      },
    },
  },
  paths: {
    '/health': {
      get: {
        operationId: 'Health',
        description: 'Liveness of the plugin; no credentials needed.',
        security: [],
        responses: {
          '200': {
            description: 'OK',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  additionalProperties: false,
                  required: ['status'],
                  properties: {
                    status: {
                      type: 'string',
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
    '/management-clusters': {
      get: {
        operationId: 'ListManagementClusters',
        description:
          'The configured management clusters (never their credentials), connection and watch-cache status.',
        responses: {
          '200': {
            description: 'OK',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  additionalProperties: false,
                  required: ['items'],
                  properties: {
                    items: {
                      type: 'array',
                      items: {
                        $ref: '#/components/schemas/ManagementCluster',
                      },
                    },
                  },
                },
              },
            },
          },
          default: {
            $ref: '#/components/responses/Error',
          },
        },
      },
    },
    '/clusters': {
      get: {
        operationId: 'ListClusters',
        description:
          "Every CAPI Cluster the caller may read, across management clusters, with the facts people filter on. The API server's CA (`apiServer.certificateAuthorityData`, ~1.5 KB a cluster) only with `include=certificateAuthority`: the catalog module asks for it, the pages do not.",
        parameters: [
          {
            name: 'include',
            in: 'query',
            required: false,
            description:
              '`certificateAuthority` adds each known API server CA to the summaries.',
            schema: {
              type: 'string',
              enum: ['certificateAuthority'],
            },
          },
          {
            name: 'uids',
            in: 'query',
            required: false,
            description:
              "Only the clusters whose CAPI Cluster has one of these uids (comma-separated, at most 100), in the order asked; a uid the watch cache no longer holds is left out. What a consumer of the `capz:changes` signal reads (the catalog module's delta): the clusters a change named, not the whole list. Not with a view's parameters.",
            schema: {
              type: 'string',
              maxLength: 6600,
              pattern: '^[-0-9a-zA-Z]{1,64}(,[-0-9a-zA-Z]{1,64}){0,99}$',
            },
          },
          {
            name: 'q',
            in: 'query',
            required: false,
            description:
              "A view of the clusters (with any of q, managementCluster, namespace, health, api, migration, location, attention, sort, dir, offset, limit; capz-common's pageOfClusters, as the clusters page filters and sorts): the search text, matched in any of a cluster's names, reason, message, version, location or owner. A view answers `total` (the clusters it keeps) and `offset` beside its page of `items`.",
            schema: {
              type: 'string',
              maxLength: 200,
            },
          },
          {
            name: 'managementCluster',
            in: 'query',
            required: false,
            schema: {
              $ref: '#/components/schemas/ManagementClusterName',
            },
          },
          {
            name: 'namespace',
            in: 'query',
            required: false,
            schema: {
              $ref: '#/components/schemas/NamespaceName',
            },
          },
          {
            name: 'health',
            in: 'query',
            required: false,
            schema: {
              $ref: '#/components/schemas/Health',
            },
          },
          {
            name: 'api',
            in: 'query',
            required: false,
            schema: {
              type: 'string',
              enum: ['aso-v1beta1', 'aso-v1alpha1', 'azure-managed'],
            },
          },
          {
            name: 'migration',
            in: 'query',
            required: false,
            description: '`yes`: migration candidates only; `no`: the others.',
            schema: {
              type: 'string',
              enum: ['yes', 'no'],
            },
          },
          {
            name: 'location',
            in: 'query',
            required: false,
            schema: {
              type: 'string',
              maxLength: 100,
            },
          },
          {
            name: 'attention',
            in: 'query',
            required: false,
            description:
              "What needs attention today (the server's day; the configured AKS release calendar): `now`, only `soon`, or `any`.",
            schema: {
              type: 'string',
              enum: ['now', 'soon', 'any'],
            },
          },
          {
            name: 'sort',
            in: 'query',
            required: false,
            description:
              'The column to sort by (default `health`, worst first); ties by management cluster, namespace and name.',
            schema: {
              type: 'string',
              enum: [
                'health',
                'name',
                'managementCluster',
                'reason',
                'api',
                'version',
                'location',
                'pools',
              ],
            },
          },
          {
            name: 'dir',
            in: 'query',
            required: false,
            schema: {
              type: 'string',
              enum: ['ascending', 'descending'],
            },
          },
          {
            name: 'offset',
            in: 'query',
            required: false,
            schema: {
              type: 'integer',
              minimum: 0,
              maximum: 1000000,
            },
          },
          {
            name: 'limit',
            in: 'query',
            required: false,
            schema: {
              type: 'integer',
              minimum: 1,
              maximum: 1000,
            },
          },
          {
            name: 'today',
            in: 'query',
            required: false,
            description:
              "The day (`YYYY-MM-DD`, UTC) `attention` and the facets' attention counts are judged for: the clusters page sends the browser's, so its filter and its rows agree; the server's day without it.",
            schema: {
              type: 'string',
              pattern: '^\\d{4}-\\d{2}-\\d{2}$',
            },
          },
          {
            name: 'facets',
            in: 'query',
            required: false,
            description:
              "`true`: a view also answers `facets`, what the clusters page shows of every cluster the caller may read whatever the view's filters (counts by health and attention, the filters' options, the clusters managed from more than one place).",
            schema: {
              type: 'string',
              enum: ['true', 'false'],
            },
          },
        ],
        responses: {
          '200': {
            description: 'OK',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  additionalProperties: false,
                  required: ['items'],
                  properties: {
                    items: {
                      type: 'array',
                      items: {
                        $ref: '#/components/schemas/ClusterSummary',
                      },
                    },
                    total: {
                      type: 'integer',
                      description:
                        'For a view (any of its parameters given), how many clusters it keeps in all.',
                    },
                    offset: {
                      type: 'integer',
                      description: 'For a view, where its page starts in them.',
                    },
                    facets: {
                      type: 'object',
                      additionalProperties: false,
                      required: [
                        'total',
                        'health',
                        'attention',
                        'managementClusters',
                        'namespaces',
                        'locations',
                        'managedFrom',
                      ],
                      properties: {
                        total: {
                          type: 'integer',
                          description: 'Every cluster the caller may read.',
                        },
                        health: {
                          type: 'object',
                          description:
                            'How many have each health (none counted as `unknown`).',
                          additionalProperties: {
                            type: 'integer',
                          },
                        },
                        attention: {
                          type: 'object',
                          additionalProperties: false,
                          required: ['now', 'soon'],
                          properties: {
                            now: {
                              type: 'integer',
                            },
                            soon: {
                              type: 'integer',
                            },
                          },
                        },
                        managementClusters: {
                          type: 'array',
                          items: {
                            type: 'string',
                          },
                        },
                        namespaces: {
                          type: 'array',
                          items: {
                            type: 'string',
                          },
                        },
                        locations: {
                          type: 'array',
                          items: {
                            type: 'string',
                          },
                        },
                        managedFrom: {
                          type: 'array',
                          description:
                            'The clusters whose AKS cluster is managed from more than one place.',
                          items: {
                            $ref: '#/components/schemas/ClusterSummary',
                          },
                        },
                      },
                    },
                    listing: {
                      type: 'array',
                      description:
                        'Management clusters whose watch cache is doing its first list: their clusters are not all in `items` yet (a catalog that replaced its set with this answer would drop the others).',
                      items: {
                        type: 'string',
                      },
                    },
                  },
                },
              },
            },
          },
          default: {
            $ref: '#/components/responses/Error',
          },
        },
      },
      post: {
        operationId: 'CreateCluster',
        description:
          "Renders a new ASO-managed AKS cluster (CAPZ's aks-aso flavor) and applies its objects on the management cluster with server-side apply under the field manager `capz-backstage`, for the calling user. Needs capz.cluster.create (conditional on management cluster and namespace; audited as `capz-cluster-create`). Every check runs before the first write: 400 invalid input (the message names the field), a credential Secret without the keys ASO reads (named; the CAPI kubeconfig Secret is named as such), a region, subscription or Kubernetes version ARM does not offer (listing what it offers; when ARM cannot be reached or refuses the credential, the Azure checks are skipped and `warnings` says so) or an object the API server rejects in a dryRun=All apply, 403 not allowed, 409 an object of those names exists already (every name is read live, the ASO objects CAPZ will create included). `dryRun: true` stops after the API server's validation and writes nothing (200).",
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                additionalProperties: false,
                required: [
                  'managementCluster',
                  'namespace',
                  'name',
                  'location',
                  'kubernetesVersion',
                  'credentialSecretName',
                  'pools',
                ],
                properties: {
                  managementCluster: {
                    $ref: '#/components/schemas/ManagementClusterName',
                  },
                  namespace: {
                    $ref: '#/components/schemas/NamespaceName',
                  },
                  name: {
                    $ref: '#/components/schemas/ClusterName',
                  },
                  location: {
                    type: 'string',
                    minLength: 1,
                  },
                  kubernetesVersion: {
                    type: 'string',
                    minLength: 1,
                  },
                  credentialSecretName: {
                    $ref: '#/components/schemas/SecretName',
                  },
                  pools: {
                    type: 'array',
                    minItems: 1,
                    maxItems: 100,
                    items: {
                      type: 'object',
                      additionalProperties: false,
                      required: ['name', 'mode', 'vmSize', 'replicas'],
                      properties: {
                        name: {
                          type: 'string',
                        },
                        mode: {
                          type: 'string',
                          enum: ['System', 'User'],
                        },
                        osType: {
                          type: 'string',
                          enum: ['Linux', 'Windows'],
                        },
                        vmSize: {
                          type: 'string',
                          minLength: 1,
                        },
                        replicas: {
                          type: 'integer',
                          minimum: 0,
                          maximum: 1000,
                        },
                        autoscaling: {
                          type: 'object',
                          additionalProperties: false,
                          required: ['minCount', 'maxCount'],
                          properties: {
                            minCount: {
                              type: 'integer',
                              minimum: 0,
                              maximum: 1000,
                            },
                            maxCount: {
                              type: 'integer',
                              minimum: 0,
                              maximum: 1000,
                            },
                          },
                        },
                      },
                    },
                  },
                  owner: {
                    type: 'string',
                  },
                  tags: {
                    type: 'object',
                    additionalProperties: {
                      type: 'string',
                    },
                  },
                  entraOnly: {
                    type: 'boolean',
                  },
                  adminGroupObjectIDs: {
                    type: 'array',
                    maxItems: 20,
                    items: {
                      type: 'string',
                    },
                  },
                  dryRun: {
                    type: 'boolean',
                  },
                },
              },
            },
          },
        },
        responses: {
          '200': {
            description:
              'Dry run; every object validated by the API server, nothing written.',
            content: {
              'application/json': {
                schema: {
                  $ref: '#/components/schemas/CreateClusterResponse',
                },
              },
            },
          },
          '201': {
            description: 'Created.',
            content: {
              'application/json': {
                schema: {
                  $ref: '#/components/schemas/CreateClusterResponse',
                },
              },
            },
          },
          default: {
            $ref: '#/components/responses/Error',
          },
        },
      },
    },
    '/clusters/{managementCluster}/{namespace}/{name}/tree': {
      get: {
        operationId: 'GetClusterTree',
        description:
          "One cluster's resource tree (Cluster, infrastructure, control plane, machine pools and the ASO objects under each) with per-node health, and its summary.",
        parameters: [
          {
            $ref: '#/components/parameters/managementCluster',
          },
          {
            $ref: '#/components/parameters/namespace',
          },
          {
            $ref: '#/components/parameters/name',
          },
          {
            name: 'group',
            in: 'query',
            description:
              'Group runs of at least this many similar machine pools (0 turns grouping off; default 3).',
            schema: {
              type: 'string',
              pattern: '^[0-9]{1,4}$',
            },
          },
        ],
        responses: {
          '200': {
            description: 'OK',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  additionalProperties: false,
                  required: ['summary', 'tree'],
                  properties: {
                    summary: {
                      $ref: '#/components/schemas/ClusterSummary',
                    },
                    tree: {
                      $ref: '#/components/schemas/TreeNode',
                    },
                  },
                },
              },
            },
          },
          default: {
            $ref: '#/components/responses/Error',
          },
        },
      },
    },
    '/clusters/{managementCluster}/{namespace}/{name}/timeline': {
      get: {
        operationId: 'GetClusterTimeline',
        description:
          "The condition transitions, object deletions and Events recorded for the cluster's objects in a time range, oldest first, and the state each condition was in at the range's start (`initial`: per object and condition, the last transition before `from`; objects seen deleted before `from` left out).",
        parameters: [
          {
            $ref: '#/components/parameters/managementCluster',
          },
          {
            $ref: '#/components/parameters/namespace',
          },
          {
            $ref: '#/components/parameters/name',
          },
          {
            name: 'from',
            in: 'query',
            allowReserved: true,
            description:
              'Start of the range (ISO 8601; default 24 hours before `to`).',
            schema: {
              type: 'string',
              format: 'date-time',
            },
          },
          {
            name: 'to',
            in: 'query',
            allowReserved: true,
            description: 'End of the range (ISO 8601; default now).',
            schema: {
              type: 'string',
              format: 'date-time',
            },
          },
          {
            name: 'uid',
            in: 'query',
            description: 'Only this object of the cluster.',
            schema: {
              type: 'string',
              pattern: '^[-0-9a-zA-Z]{1,64}$',
            },
          },
          {
            name: 'limit',
            in: 'query',
            description:
              'At most this many transitions and this many Events (default 5000, at most 20000).',
            schema: {
              type: 'string',
              pattern: '^[0-9]{1,5}$',
            },
          },
        ],
        responses: {
          '200': {
            description: 'OK',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  additionalProperties: false,
                  required: [
                    'from',
                    'to',
                    'initial',
                    'transitions',
                    'deletions',
                    'events',
                    'truncated',
                  ],
                  properties: {
                    from: {
                      type: 'string',
                    },
                    to: {
                      type: 'string',
                    },
                    initial: {
                      type: 'array',
                      items: {
                        $ref: '#/components/schemas/ConditionTransition',
                      },
                    },
                    transitions: {
                      type: 'array',
                      items: {
                        $ref: '#/components/schemas/ConditionTransition',
                      },
                    },
                    deletions: {
                      type: 'array',
                      items: {
                        $ref: '#/components/schemas/ObjectDeletion',
                      },
                    },
                    events: {
                      type: 'array',
                      items: {
                        $ref: '#/components/schemas/TimelineEvent',
                      },
                    },
                    truncated: {
                      type: 'boolean',
                    },
                  },
                },
              },
            },
          },
          default: {
            $ref: '#/components/responses/Error',
          },
        },
      },
    },
    '/clusters/{managementCluster}/{namespace}/{name}/objects/{uid}': {
      get: {
        operationId: 'GetClusterObject',
        description:
          "One object of the cluster's tree as YAML, managedFields dropped and secret values redacted.",
        parameters: [
          {
            $ref: '#/components/parameters/managementCluster',
          },
          {
            $ref: '#/components/parameters/namespace',
          },
          {
            $ref: '#/components/parameters/name',
          },
          {
            name: 'uid',
            in: 'path',
            required: true,
            schema: {
              type: 'string',
              pattern: '^[-0-9a-zA-Z]{1,64}$',
            },
          },
        ],
        responses: {
          '200': {
            description: 'OK',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  additionalProperties: false,
                  required: ['kind', 'name', 'yaml'],
                  properties: {
                    kind: {
                      type: 'string',
                    },
                    name: {
                      type: 'string',
                    },
                    namespace: {
                      type: 'string',
                    },
                    yaml: {
                      type: 'string',
                    },
                  },
                },
              },
            },
          },
          default: {
            $ref: '#/components/responses/Error',
          },
        },
      },
    },
    '/clusters/{managementCluster}/{namespace}/{name}': {
      delete: {
        operationId: 'DeleteCluster',
        description:
          "Deletes the CAPI Cluster once `confirmName` equals its name, for the calling user (capz.cluster.delete, conditional on management cluster and namespace; audited as `capz-cluster-delete`). What Azure then deletes and keeps is the delete preview's, checked just before (a paused or deleting cluster is a 409); the delete is validated with dryRun=All and guarded by the Cluster's resourceVersion. 202: CAPI, CAPZ and ASO take it from there. For a cluster a Flux Kustomization applies, with the backend's Git integration: nothing is deleted live; the preview's Git change (`git`) is proposed as a branch and pull request, exactly as previewed (the request carries the preview's `planDigest`; the repository or cluster moved since: 409), and the answer's `preview.git.proposed` names it.",
        parameters: [
          {
            $ref: '#/components/parameters/managementCluster',
          },
          {
            $ref: '#/components/parameters/namespace',
          },
          {
            $ref: '#/components/parameters/name',
          },
        ],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                additionalProperties: false,
                required: ['confirmName'],
                properties: {
                  confirmName: {
                    type: 'string',
                    maxLength: 63,
                  },
                  planDigest: {
                    $ref: '#/components/schemas/Day2PlanDigest',
                  },
                },
              },
            },
          },
        },
        responses: {
          '202': {
            description:
              'The Cluster is being deleted, or (preview.git.proposed) its delete is proposed to Git.',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['accepted', 'preview'],
                  properties: {
                    accepted: {
                      type: 'boolean',
                    },
                    preview: {
                      $ref: '#/components/schemas/DeletePreview',
                    },
                  },
                },
              },
            },
          },
          '409': {
            description:
              "Nothing was deleted: the cluster is paused or already being deleted, a delete-preview blocker holds, or a GitOps controller applies one of its objects (Flux's Kustomization or HelmRelease, Argo CD's Application; docs/flux-facts.md#applied-by-rule) and would create it again: the message names it.",
            content: {
              'application/json': {
                schema: {
                  $ref: '#/components/schemas/Error',
                },
              },
            },
          },
          default: {
            $ref: '#/components/responses/Error',
          },
        },
      },
    },
    '/clusters/{managementCluster}/{namespace}/{name}/actions/preview': {
      post: {
        operationId: 'PreviewClusterAction',
        description:
          "Plans a day-2 action (scale, autoscale, upgrade, addPool, removePool, pause, resume) from the cluster's objects read live, with capz-common's rules, and validates every write with a server-side apply under dryRun=All; nothing is written. Needs the action's permission (capz.cluster.scale, .upgrade, .nodepool, .pause; audited as `capz-cluster-day2`). 400 a broken rule (named) or input the API server rejects, 403 not allowed, 404 no such cluster, 409 the cluster's state refuses it (paused delete, being deleted, an upgrade still running) or it changed since it was read.",
        parameters: [
          {
            $ref: '#/components/parameters/managementCluster',
          },
          {
            $ref: '#/components/parameters/namespace',
          },
          {
            $ref: '#/components/parameters/name',
          },
        ],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                $ref: '#/components/schemas/Day2Action',
              },
            },
          },
        },
        responses: {
          '200': {
            description: 'The plan, validated, not applied.',
            content: {
              'application/json': {
                schema: {
                  $ref: '#/components/schemas/Day2Plan',
                },
              },
            },
          },
          default: {
            $ref: '#/components/responses/Error',
          },
        },
      },
    },
    '/clusters/{managementCluster}/{namespace}/{name}/actions': {
      post: {
        operationId: 'ApplyClusterAction',
        description:
          'Applies the plan the user previewed: the body carries the preview\'s `planDigest`; the backend plans again from the objects read live and writes only when that plan is the previewed one (409 "changed since the preview", nothing written, otherwise), with server-side apply under the field manager `capz-backstage` (forced, each write guarded by the resourceVersion it was planned from; a conflict before anything is written reads again and writes only if the plan is unchanged). An action that changes nothing writes nothing. 400 without a planDigest; otherwise the preview\'s errors.',
        parameters: [
          {
            $ref: '#/components/parameters/managementCluster',
          },
          {
            $ref: '#/components/parameters/namespace',
          },
          {
            $ref: '#/components/parameters/name',
          },
        ],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                $ref: '#/components/schemas/Day2Action',
              },
            },
          },
        },
        responses: {
          '200': {
            description: 'The plan, applied.',
            content: {
              'application/json': {
                schema: {
                  $ref: '#/components/schemas/Day2Plan',
                },
              },
            },
          },
          '409': {
            description:
              'Nothing was written. The cluster changed since the preview ("changed since the preview", naming what moved), another action on it is being applied, or a GitOps controller applies an object the plan changes, checked on the objects read live (the preview\'s `blockers`; docs/flux-facts.md#applied-by-rule). That message names the Kustomization (namespace/name), HelmRelease or Application and what its next run would do, e.g. "Nothing was written: Flux\'s Kustomization flux-system/clusters applies MachinePool default/c1-pool0: it would put spec.replicas back at its next reconcile; change it in Git."',
            content: {
              'application/json': {
                schema: {
                  $ref: '#/components/schemas/Error',
                },
              },
            },
          },
          default: {
            $ref: '#/components/responses/Error',
          },
        },
      },
    },
    '/clusters/{managementCluster}/{namespace}/{name}/upgrades': {
      get: {
        operationId: 'GetClusterUpgrades',
        description:
          "The control plane's and pools' versions, and the versions the control plane may move to next: those AKS offers in the cluster's region (ARM, with the cluster's ASO credential), newer, at most one minor ahead. `problems` names what blocks an upgrade (a pinned kubernetesVersion, with its fix). 503 with Retry-After while ARM is throttling or unavailable. capz.cluster.read.",
        parameters: [
          {
            $ref: '#/components/parameters/managementCluster',
          },
          {
            $ref: '#/components/parameters/namespace',
          },
          {
            $ref: '#/components/parameters/name',
          },
        ],
        responses: {
          '200': {
            description: 'OK',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['controlPlane', 'pools', 'available', 'problems'],
                  properties: {
                    controlPlane: {
                      type: 'string',
                    },
                    pools: {
                      type: 'array',
                      items: {
                        type: 'object',
                        required: ['name', 'version'],
                        properties: {
                          name: {
                            type: 'string',
                          },
                          version: {
                            type: 'string',
                          },
                        },
                      },
                    },
                    available: {
                      type: 'array',
                      items: {
                        type: 'string',
                      },
                    },
                    problems: {
                      type: 'array',
                      items: {
                        type: 'string',
                      },
                    },
                  },
                },
              },
            },
          },
          '503': {
            $ref: '#/components/responses/ArmUnavailable',
          },
          default: {
            $ref: '#/components/responses/Error',
          },
        },
      },
    },
    '/clusters/{managementCluster}/{namespace}/{name}/delete-preview': {
      get: {
        operationId: 'GetClusterDeletePreview',
        description:
          'What deleting the cluster does in Azure, from the watch cache: every Azure resource its ASO objects stand for, deleted or kept, each with the reason (reconcile policy, owner, containing resource group, an object elsewhere that manages it), and what blocks the delete now. capz.cluster.read.',
        parameters: [
          {
            $ref: '#/components/parameters/managementCluster',
          },
          {
            $ref: '#/components/parameters/namespace',
          },
          {
            $ref: '#/components/parameters/name',
          },
        ],
        responses: {
          '200': {
            description: 'OK',
            content: {
              'application/json': {
                schema: {
                  $ref: '#/components/schemas/DeletePreview',
                },
              },
            },
          },
          default: {
            $ref: '#/components/responses/Error',
          },
        },
      },
    },
    '/clusters/{managementCluster}/{namespace}/{name}/connect': {
      get: {
        operationId: 'GetClusterConnect',
        description:
          'Commands that fetch a kubeconfig for the workload cluster (az aks get-credentials, kubelogin for Entra-only clusters, clusterctl/kubectl on the management cluster), never a credential. capz.cluster.read; audited as `capz-cluster-connect`.',
        parameters: [
          {
            $ref: '#/components/parameters/managementCluster',
          },
          {
            $ref: '#/components/parameters/namespace',
          },
          {
            $ref: '#/components/parameters/name',
          },
        ],
        responses: {
          '200': {
            description: 'OK',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['commands', 'notes'],
                  properties: {
                    commands: {
                      type: 'array',
                      items: {
                        type: 'string',
                      },
                    },
                    notes: {
                      type: 'array',
                      items: {
                        type: 'string',
                      },
                    },
                    kubeconfig: {
                      type: 'object',
                      description:
                        'Whether GET .../kubeconfig will hand out a kubeconfig for this cluster, and why not (the UI disables its download with that reason).',
                      required: ['available'],
                      properties: {
                        available: {
                          type: 'boolean',
                        },
                        reason: {
                          type: 'string',
                        },
                      },
                    },
                  },
                },
              },
            },
          },
          default: {
            $ref: '#/components/responses/Error',
          },
        },
      },
    },
    '/clusters/{managementCluster}/{namespace}/{name}/kubeconfig': {
      get: {
        operationId: 'GetClusterKubeconfig',
        description:
          "A kubeconfig for the workload cluster from AKS's listClusterUserCredential (format=exec), read with the cluster's ASO credential. For an Entra ID cluster it signs in through kubelogin and holds no secret; one that holds a secret (local accounts) is refused with 409 unless capz.connect.allowLocalAccountKubeconfig is true; 503 with Retry-After while ARM is throttling or unavailable. capz.cluster.connect; audited as `capz-cluster-kubeconfig`.",
        parameters: [
          {
            $ref: '#/components/parameters/managementCluster',
          },
          {
            $ref: '#/components/parameters/namespace',
          },
          {
            $ref: '#/components/parameters/name',
          },
        ],
        responses: {
          '200': {
            description: 'OK',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  additionalProperties: false,
                  required: ['fileName', 'kubeconfig', 'server', 'auth'],
                  properties: {
                    fileName: {
                      type: 'string',
                    },
                    kubeconfig: {
                      type: 'string',
                    },
                    server: {
                      type: 'string',
                    },
                    auth: {
                      type: 'string',
                      enum: ['exec', 'local-account'],
                    },
                  },
                },
              },
            },
          },
          '503': {
            $ref: '#/components/responses/ArmUnavailable',
          },
          default: {
            $ref: '#/components/responses/Error',
          },
        },
      },
    },
    '/fleet-runs/preview': {
      post: {
        operationId: 'PreviewFleetRun',
        description:
          "A fleet upgrade planned before anything starts: each stage's clusters with the single-cluster upgrade's plan (the control plane to the target, then its pools), or why a cluster is left out (not healthy, CAPZ fighting AKS over its version, a pool out of AKS's skew, a version its region does not offer, applied by a GitOps controller whose changes cannot be proposed to Git, not found, or capz.cluster.upgrade not allowed on it). A step whose objects a Flux Kustomization applies is planned through a pull request (`throughGit`) when day 2 has a Git delivery. From the watch cache, with the versions AKS offers read from ARM once per region and credential; writes nothing. 503 with Retry-After while ARM is throttling or unavailable. The fleet routes take bodies of up to 4 MB (about 40,000 clusters), the others 100 kB: a larger body is a 400 in words.",
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                $ref: '#/components/schemas/FleetRunSpec',
              },
            },
          },
        },
        responses: {
          '200': {
            description: 'OK',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['target', 'concurrency', 'stages', 'counts'],
                  properties: {
                    target: {
                      $ref: '#/components/schemas/FleetRunTarget',
                    },
                    concurrency: {
                      type: 'integer',
                    },
                    stages: {
                      type: 'array',
                      items: {
                        type: 'object',
                        required: ['name', 'clusters'],
                        properties: {
                          name: {
                            type: 'string',
                          },
                          clusters: {
                            type: 'array',
                            items: {
                              $ref: '#/components/schemas/FleetClusterPlan',
                            },
                          },
                        },
                      },
                    },
                    counts: {
                      type: 'object',
                      required: ['upgrade', 'current', 'refused'],
                      properties: {
                        upgrade: {
                          type: 'integer',
                        },
                        current: {
                          type: 'integer',
                        },
                        refused: {
                          type: 'integer',
                        },
                      },
                    },
                  },
                },
              },
            },
          },
          '503': {
            $ref: '#/components/responses/ArmUnavailable',
          },
          default: {
            $ref: '#/components/responses/Error',
          },
        },
      },
    },
    '/fleet-runs': {
      get: {
        operationId: 'ListFleetRuns',
        description:
          'The newest fleet runs (at most 100) whose every cluster the caller may read (capz.cluster.read).',
        responses: {
          '200': {
            description: 'OK',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['items'],
                  properties: {
                    items: {
                      type: 'array',
                      items: {
                        $ref: '#/components/schemas/FleetRunRecord',
                      },
                    },
                  },
                },
              },
            },
          },
          default: {
            $ref: '#/components/responses/Error',
          },
        },
      },
      post: {
        operationId: 'CreateFleetRun',
        description:
          "Starts a fleet upgrade: previewed as POST /fleet-runs/preview does (the caller's capz.cluster.upgrade on each cluster), then carried out stage by stage by the backend, each cluster's step the single-cluster upgrade with its rules checked live. Clusters the preview leaves out are skipped with its reasons. Users only; audited. 409 when no cluster has anything to upgrade.",
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                additionalProperties: false,
                required: ['spec'],
                properties: {
                  spec: {
                    $ref: '#/components/schemas/FleetRunSpec',
                  },
                  options: {
                    $ref: '#/components/schemas/FleetRunOptions',
                  },
                },
              },
            },
          },
        },
        responses: {
          '201': {
            description: 'Created',
            content: {
              'application/json': {
                schema: {
                  $ref: '#/components/schemas/FleetRunRecord',
                },
              },
            },
          },
          '503': {
            $ref: '#/components/responses/ArmUnavailable',
          },
          default: {
            $ref: '#/components/responses/Error',
          },
        },
      },
    },
    '/fleet-runs/{id}': {
      get: {
        operationId: 'GetFleetRun',
        description:
          'One fleet run (404 when the caller may not read every cluster of it).',
        parameters: [
          {
            $ref: '#/components/parameters/fleetRunId',
          },
        ],
        responses: {
          '200': {
            description: 'OK',
            content: {
              'application/json': {
                schema: {
                  $ref: '#/components/schemas/FleetRunRecord',
                },
              },
            },
          },
          default: {
            $ref: '#/components/responses/Error',
          },
        },
      },
    },
    '/fleet-runs/{id}/commands': {
      post: {
        operationId: 'CommandFleetRun',
        description:
          "A user's command on a run: approve needs capz.fleet.run.approve; the others capz.cluster.upgrade on the clusters they touch (skip, retry: that cluster; pause, resume, cancel: every cluster of the run). Audited. 409 in words when the run cannot take it now.",
        parameters: [
          {
            $ref: '#/components/parameters/fleetRunId',
          },
        ],
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                $ref: '#/components/schemas/FleetRunCommand',
              },
            },
          },
        },
        responses: {
          '200': {
            description: 'OK',
            content: {
              'application/json': {
                schema: {
                  $ref: '#/components/schemas/FleetRunRecord',
                },
              },
            },
          },
          default: {
            $ref: '#/components/responses/Error',
          },
        },
      },
    },
    '/jobs/preview': {
      post: {
        operationId: 'PreviewJob',
        description:
          'The preflight checks and the exact plan a job would run, changing nothing. Needs capz.cluster.adopt (adopt) or capz.cluster.migrate (migrate, upgrade-api-version) and read access to the target. A job already holding a claim on the same AKS cluster shows as the failed check `no-other-job`.',
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                $ref: '#/components/schemas/JobRequest',
              },
            },
          },
        },
        responses: {
          '200': {
            description: 'OK',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['type', 'target', 'preflight', 'plan'],
                  properties: {
                    type: {
                      type: 'string',
                    },
                    target: {
                      $ref: '#/components/schemas/ClusterPlace',
                    },
                    preflight: {
                      type: 'array',
                      items: {
                        $ref: '#/components/schemas/PreflightCheck',
                      },
                    },
                    plan: {
                      type: 'array',
                      items: {
                        $ref: '#/components/schemas/StepPlan',
                      },
                    },
                  },
                },
              },
            },
          },
          default: {
            $ref: '#/components/responses/Error',
          },
        },
      },
    },
    '/jobs': {
      get: {
        operationId: 'ListJobs',
        description:
          'Jobs the caller may read, newest first (at most 100), without their plans.',
        parameters: [
          {
            name: 'managementCluster',
            in: 'query',
            schema: {
              $ref: '#/components/schemas/ManagementClusterName',
            },
          },
          {
            name: 'namespace',
            in: 'query',
            schema: {
              $ref: '#/components/schemas/NamespaceName',
            },
          },
          {
            name: 'name',
            in: 'query',
            schema: {
              $ref: '#/components/schemas/ClusterName',
            },
          },
          {
            name: 'active',
            in: 'query',
            description:
              '`true`: only jobs not in a final state (succeeded, cancelled).',
            schema: {
              type: 'string',
              enum: ['true', 'false'],
            },
          },
        ],
        responses: {
          '200': {
            description: 'OK',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['items'],
                  properties: {
                    items: {
                      type: 'array',
                      items: {
                        $ref: '#/components/schemas/Job',
                      },
                    },
                  },
                },
              },
            },
          },
          default: {
            $ref: '#/components/responses/Error',
          },
        },
      },
      post: {
        operationId: 'StartJob',
        description:
          'Starts a job (same permissions as the preview; audited as `capz-job`). 409 (JobConflict) when the cluster has an active job or another job holds a claim on its AKS cluster or resource group, before any preflight; 422 (PreflightFailed) when a preflight check fails. Nothing is stored in either case.',
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                $ref: '#/components/schemas/JobRequest',
              },
            },
          },
        },
        responses: {
          '201': {
            description: 'Created; the job runs in the background.',
            content: {
              'application/json': {
                schema: {
                  $ref: '#/components/schemas/JobDetails',
                },
              },
            },
          },
          '409': {
            $ref: '#/components/responses/JobConflict',
          },
          '422': {
            $ref: '#/components/responses/PreflightFailed',
          },
          default: {
            $ref: '#/components/responses/Error',
          },
        },
      },
    },
    '/jobs/{id}': {
      get: {
        operationId: 'GetJob',
        description:
          'One job with its plan and log (404 when the caller may not read its target).',
        parameters: [
          {
            $ref: '#/components/parameters/jobId',
          },
        ],
        responses: {
          '200': {
            description: 'OK',
            content: {
              'application/json': {
                schema: {
                  $ref: '#/components/schemas/JobDetails',
                },
              },
            },
          },
          default: {
            $ref: '#/components/responses/Error',
          },
        },
      },
    },
    '/jobs/{id}/pause': {
      post: {
        operationId: 'PauseJob',
        description:
          'Pauses a job: a job nobody runs pauses at once, a running one at its next step boundary or wait. Same permissions as starting it; audited. 409 (JobConflict) when its state does not allow it.',
        parameters: [
          {
            $ref: '#/components/parameters/jobId',
          },
        ],
        responses: {
          '200': {
            $ref: '#/components/responses/JobDetails',
          },
          '409': {
            $ref: '#/components/responses/JobConflict',
          },
          default: {
            $ref: '#/components/responses/Error',
          },
        },
      },
    },
    '/jobs/{id}/resume': {
      post: {
        operationId: 'ResumeJob',
        description:
          'Resumes a paused or failed job at its first unfinished step (a failed step starts over). Same permissions as starting it; audited. 409 (JobConflict) when its state does not allow it.',
        parameters: [
          {
            $ref: '#/components/parameters/jobId',
          },
        ],
        responses: {
          '200': {
            $ref: '#/components/responses/JobDetails',
          },
          '409': {
            $ref: '#/components/responses/JobConflict',
          },
          default: {
            $ref: '#/components/responses/Error',
          },
        },
      },
    },
    '/jobs/{id}/cancel': {
      post: {
        operationId: 'CancelJob',
        description:
          'Cancels a job: an idle one at once, a running one at its next step boundary or wait; the job then says what it left on the cluster. Same permissions as starting it; audited. 409 (JobConflict) when its state does not allow it.',
        parameters: [
          {
            $ref: '#/components/parameters/jobId',
          },
        ],
        responses: {
          '200': {
            $ref: '#/components/responses/JobDetails',
          },
          '409': {
            $ref: '#/components/responses/JobConflict',
          },
          default: {
            $ref: '#/components/responses/Error',
          },
        },
      },
    },
    '/credential-secrets': {
      get: {
        operationId: 'ListCredentialSecrets',
        description:
          "The adoption wizard's ASO credential Secrets in a namespace, names and non-secret facts only (never values): `aso-credential`, the Secrets the namespace's ASO objects name, and `name` if given, each read live.",
        parameters: [
          {
            name: 'managementCluster',
            in: 'query',
            required: true,
            schema: {
              $ref: '#/components/schemas/ManagementClusterName',
            },
          },
          {
            name: 'namespace',
            in: 'query',
            required: true,
            schema: {
              $ref: '#/components/schemas/NamespaceName',
            },
          },
          {
            name: 'name',
            in: 'query',
            schema: {
              $ref: '#/components/schemas/SecretName',
            },
          },
        ],
        responses: {
          '200': {
            description: 'OK',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['items'],
                  properties: {
                    items: {
                      type: 'array',
                      items: {
                        type: 'object',
                        required: ['namespace', 'name'],
                        properties: {
                          namespace: {
                            type: 'string',
                          },
                          name: {
                            type: 'string',
                          },
                          subscriptionId: {
                            type: 'string',
                          },
                          authMode: {
                            type: 'string',
                          },
                        },
                      },
                    },
                  },
                },
              },
            },
          },
          default: {
            $ref: '#/components/responses/Error',
          },
        },
      },
    },
    '/azure/clusters': {
      get: {
        operationId: 'ListAzureClusters',
        description:
          'The AKS clusters the credential Secret can see, through ARM (capz.azureDiscovery). Needs capz.cluster.adopt. 400 a Secret without the keys ASO reads (named), 404 a subscription the credential cannot see, 503 ARM throttling or unavailable (with Retry-After; the message says when to try again), 502 ARM failing or refusing the credential.',
        parameters: [
          {
            $ref: '#/components/parameters/pickerManagementCluster',
          },
          {
            $ref: '#/components/parameters/pickerNamespace',
          },
          {
            $ref: '#/components/parameters/pickerCredentialSecret',
          },
        ],
        responses: {
          '200': {
            description: 'OK',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['subscriptionId', 'items'],
                  properties: {
                    subscriptionId: {
                      type: 'string',
                    },
                    items: {
                      type: 'array',
                      items: {
                        type: 'object',
                      },
                    },
                  },
                },
              },
            },
          },
          '503': {
            $ref: '#/components/responses/ArmUnavailable',
          },
          default: {
            $ref: '#/components/responses/Error',
          },
        },
      },
    },
    '/pickers/namespaces': {
      get: {
        operationId: 'ListPickerNamespaces',
        description:
          "The scaffolder form's namespace picker: the namespaces of a management cluster the caller may read. The configured `namespaces` when the management cluster is limited to some; otherwise a live list from the API server (namespaces are not in the watch cache), or, when the backend may not list namespaces, the namespaces of the objects in the watch cache. `source` says which.",
        parameters: [
          {
            $ref: '#/components/parameters/pickerManagementCluster',
          },
        ],
        responses: {
          '200': {
            description: 'OK',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  additionalProperties: false,
                  required: ['managementCluster', 'source', 'items'],
                  properties: {
                    managementCluster: {
                      type: 'string',
                    },
                    source: {
                      type: 'string',
                      enum: ['config', 'live', 'watch-cache'],
                    },
                    items: {
                      type: 'array',
                      items: {
                        type: 'object',
                        additionalProperties: false,
                        required: ['name'],
                        properties: {
                          name: {
                            type: 'string',
                          },
                        },
                      },
                    },
                  },
                },
              },
            },
          },
          default: {
            $ref: '#/components/responses/Error',
          },
        },
      },
    },
    '/pickers/regions': {
      get: {
        operationId: 'ListPickerRegions',
        description:
          "The Azure regions of the credential Secret's subscription (ARM's subscription locations), read with that credential (capz.azureDiscovery), cached per credential. 400 a Secret without the keys ASO reads (named) or a malformed subscription id, 404 a subscription the credential cannot see (listing those it can), 503 ARM throttling or unavailable (with Retry-After), 502 ARM failing or refusing the credential.",
        parameters: [
          {
            $ref: '#/components/parameters/pickerManagementCluster',
          },
          {
            $ref: '#/components/parameters/pickerNamespace',
          },
          {
            $ref: '#/components/parameters/pickerCredentialSecret',
          },
          {
            $ref: '#/components/parameters/pickerSubscriptionId',
          },
        ],
        responses: {
          '200': {
            description: 'OK',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  additionalProperties: false,
                  required: ['subscriptionId', 'items'],
                  properties: {
                    subscriptionId: {
                      type: 'string',
                    },
                    items: {
                      type: 'array',
                      items: {
                        type: 'object',
                        additionalProperties: false,
                        required: ['name', 'displayName'],
                        properties: {
                          name: {
                            type: 'string',
                          },
                          displayName: {
                            type: 'string',
                          },
                        },
                      },
                    },
                  },
                },
              },
            },
          },
          '503': {
            $ref: '#/components/responses/ArmUnavailable',
          },
          default: {
            $ref: '#/components/responses/Error',
          },
        },
      },
    },
    '/pickers/kubernetes-versions': {
      get: {
        operationId: 'ListPickerKubernetesVersions',
        description:
          "The Kubernetes versions AKS offers for new clusters in a region (managedClusters.listKubernetesVersions), read with the credential Secret: every patch of every GA minor, newest first, with a leading v; previews are left out (counted in previewsHidden); the default minor's newest patch has isDefault. 400 a region AKS does not offer (listing the subscription's regions) or a Secret without the keys ASO reads, 404 a subscription the credential cannot see, 503 ARM throttling or unavailable (with Retry-After), 502 ARM failing.",
        parameters: [
          {
            $ref: '#/components/parameters/pickerManagementCluster',
          },
          {
            $ref: '#/components/parameters/pickerNamespace',
          },
          {
            $ref: '#/components/parameters/pickerCredentialSecret',
          },
          {
            $ref: '#/components/parameters/pickerSubscriptionId',
          },
          {
            name: 'location',
            in: 'query',
            required: true,
            schema: {
              type: 'string',
              pattern: '^[a-z][a-z0-9]*$',
              maxLength: 64,
            },
          },
        ],
        responses: {
          '200': {
            description: 'OK',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  additionalProperties: false,
                  required: [
                    'subscriptionId',
                    'location',
                    'items',
                    'previewsHidden',
                  ],
                  properties: {
                    subscriptionId: {
                      type: 'string',
                    },
                    location: {
                      type: 'string',
                    },
                    previewsHidden: {
                      type: 'integer',
                    },
                    items: {
                      type: 'array',
                      items: {
                        type: 'object',
                        additionalProperties: false,
                        required: [
                          'version',
                          'minor',
                          'isDefault',
                          'supportPlans',
                        ],
                        properties: {
                          version: {
                            type: 'string',
                          },
                          minor: {
                            type: 'string',
                          },
                          isDefault: {
                            type: 'boolean',
                          },
                          supportPlans: {
                            type: 'array',
                            items: {
                              type: 'string',
                            },
                          },
                        },
                      },
                    },
                  },
                },
              },
            },
          },
          '503': {
            $ref: '#/components/responses/ArmUnavailable',
          },
          default: {
            $ref: '#/components/responses/Error',
          },
        },
      },
    },
    '/pickers/vm-sizes': {
      get: {
        operationId: 'ListPickerVmSizes',
        description:
          'A curated list of general-purpose VM sizes for node pools (no Azure call: the SKU list is large and per region; any other size can still be typed).',
        responses: {
          '200': {
            description: 'OK',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  additionalProperties: false,
                  required: ['items'],
                  properties: {
                    items: {
                      type: 'array',
                      items: {
                        type: 'object',
                        additionalProperties: false,
                        required: ['name', 'vCPUs', 'memoryGiB'],
                        properties: {
                          name: {
                            type: 'string',
                          },
                          vCPUs: {
                            type: 'integer',
                          },
                          memoryGiB: {
                            type: 'number',
                          },
                        },
                      },
                    },
                  },
                },
              },
            },
          },
          default: {
            $ref: '#/components/responses/Error',
          },
        },
      },
    },
  },
} as const;

export const createOpenApiRouter = async (
  options?: Parameters<typeof createValidatedOpenApiRouter>['1'],
) => createValidatedOpenApiRouter<typeof spec>(spec, options);
