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
      managementCluster: {
        name: 'managementCluster',
        in: 'path',
        required: true,
        description:
          "The management cluster's name (capz.managementClusters[].name).",
        schema: {
          $ref: '#/components/schemas/Name',
        },
      },
      namespace: {
        name: 'namespace',
        in: 'path',
        required: true,
        schema: {
          $ref: '#/components/schemas/Name',
        },
      },
      name: {
        name: 'name',
        in: 'path',
        required: true,
        description: "The CAPI Cluster's name.",
        schema: {
          $ref: '#/components/schemas/Name',
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
    },
    schemas: {
      Name: {
        type: 'string',
        pattern: '^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$',
      },
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
            required: ['total', 'ready', 'replicas'],
            properties: {
              total: {
                type: 'integer',
              },
              ready: {
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
          'Every CAPI Cluster the caller may read, across management clusters, with the facts people filter on.',
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
          "Renders a new ASO-managed AKS cluster (CAPZ's aks-aso flavor) and applies its objects on the management cluster with server-side apply under the field manager `capz-backstage`, for the calling user. Needs capz.cluster.create (conditional on management cluster and namespace; audited as `capz-cluster-create`). Every check runs before the first write: 400 invalid input (the message names the field) or an object the API server rejects in a dryRun=All apply, 403 not allowed, 409 an object of those names exists already (every name is read live, the ASO objects CAPZ will create included). `dryRun: true` stops after the API server's validation and writes nothing (200).",
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
                    type: 'string',
                    minLength: 1,
                  },
                  namespace: {
                    type: 'string',
                    minLength: 1,
                  },
                  name: {
                    type: 'string',
                    minLength: 1,
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
                    type: 'string',
                    minLength: 1,
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
                        vmSize: {
                          type: 'string',
                          minLength: 1,
                        },
                        replicas: {
                          type: 'integer',
                          minimum: 0,
                          maximum: 1000,
                        },
                      },
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
          "The condition transitions and Events recorded for the cluster's objects in a time range, oldest first.",
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
                    'transitions',
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
                    transitions: {
                      type: 'array',
                      items: {
                        $ref: '#/components/schemas/ConditionTransition',
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
  },
} as const;

export const createOpenApiRouter = async (
  options?: Parameters<typeof createValidatedOpenApiRouter>['1'],
) => createValidatedOpenApiRouter<typeof spec>(spec, options);
